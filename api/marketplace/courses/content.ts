/**
 * A course's modules and lessons (application API). The caller's access to the course is checked
 * first (CourseService.owned); writes go through CourseService.write (course row locked,
 * ARCHIVED → 409). A module or lesson of another course is 404, as one that does not exist.
 */
import crypto from 'node:crypto';
import type { Transaction } from 'sequelize';
import { CourseLesson, CourseModule } from '../../../db/models';
import { ApiError } from '../../errors/apiError';
import { presentLesson, presentModule } from './presenter';
import type { CreateLessonBody, CreateModuleBody, UpdateLessonBody, UpdateModuleBody } from './schema';
import { definedOnly, type CourseService } from './service';

export const contentErrors = {
  moduleNotFound: () => new ApiError(404, 'MODULE_NOT_FOUND', 'module not found'),
  lessonNotFound: () => new ApiError(404, 'LESSON_NOT_FOUND', 'lesson not found'),
};

const ORDER = [
  ['position', 'ASC'],
  ['createdAt', 'ASC'],
  ['id', 'ASC'],
] as [string, string][];

/** `order` in the API is the `position` column. */
function positioned<T extends { order?: number }>(body: T): Omit<T, 'order'> & { position?: number } {
  const { order, ...rest } = body;
  return { ...rest, ...(order === undefined ? {} : { position: order }) };
}

export class CourseContentService {
  constructor(private readonly courses: CourseService) {}

  /** Modules in order, each with its lessons in order. */
  async list(courseId: string) {
    const [modules, lessons] = await Promise.all([
      CourseModule.findAll({ where: { courseId }, order: ORDER }),
      CourseLesson.findAll({ where: { courseId }, order: ORDER }),
    ]);
    return {
      data: modules.map((m) => ({
        ...presentModule(m),
        lessons: lessons.filter((l) => l.moduleId === m.id).map(presentLesson),
      })),
    };
  }

  async createModule(courseId: string, body: CreateModuleBody) {
    return this.courses.write(
      courseId,
      async () => null,
      async (course, _none, transaction) =>
        presentModule(
          await CourseModule.create(
            { id: crypto.randomUUID(), courseId: course.id, title: body.title, position: body.order },
            { transaction },
          ),
        ),
    );
  }

  async updateModule(courseId: string, moduleId: string, body: UpdateModuleBody) {
    return this.courses.write(
      courseId,
      (t) => this.module(courseId, moduleId, t),
      async (_course, module, transaction) => {
        module.set(definedOnly(positioned(body)));
        await module.save({ transaction });
        return presentModule(module);
      },
    );
  }

  async createLesson(courseId: string, moduleId: string, body: CreateLessonBody) {
    return this.courses.write(
      courseId,
      (t) => this.module(courseId, moduleId, t),
      async (course, module, transaction) =>
        presentLesson(
          await CourseLesson.create(
            {
              id: crypto.randomUUID(),
              courseId: course.id,
              moduleId: module.id,
              title: body.title,
              position: body.order,
              contentUrl: body.contentUrl ?? null,
            },
            { transaction },
          ),
        ),
    );
  }

  async updateLesson(courseId: string, lessonId: string, body: UpdateLessonBody) {
    return this.courses.write(
      courseId,
      async (transaction) => {
        const lesson = await CourseLesson.findOne({
          where: { id: lessonId, courseId },
          transaction,
          lock: transaction.LOCK.UPDATE,
        });
        if (!lesson) throw contentErrors.lessonNotFound();
        return lesson;
      },
      async (_course, lesson, transaction) => {
        lesson.set(definedOnly(positioned(body)));
        await lesson.save({ transaction });
        return presentLesson(lesson);
      },
    );
  }

  private async module(courseId: string, moduleId: string, transaction: Transaction): Promise<CourseModule> {
    const module = await CourseModule.findOne({
      where: { id: moduleId, courseId },
      transaction,
      lock: transaction.LOCK.UPDATE,
    });
    if (!module) throw contentErrors.moduleNotFound();
    return module;
  }
}
