/**
 * A course's modules and lessons (application API). The caller's access to the course is checked
 * first (CourseService.owned); writes go through CourseService.write (course row locked,
 * ARCHIVED → 409). A module or lesson of another course is 404, as one that does not exist.
 */
import crypto from 'node:crypto';
import { courseStore, type CourseModule } from '../../../db/marketplace';
import type { Tx } from '../../../db/tx';
import { ApiError } from '../../errors/apiError';
import { presentLesson, presentModule } from './presenter';
import type { CreateLessonBody, CreateModuleBody, UpdateLessonBody, UpdateModuleBody } from './schema';
import { definedOnly, type CourseService } from './service';

export const contentErrors = {
  moduleNotFound: () => new ApiError(404, 'MODULE_NOT_FOUND', 'module not found'),
  lessonNotFound: () => new ApiError(404, 'LESSON_NOT_FOUND', 'lesson not found'),
};

/** `order` in the API is the `position` column. */
function positioned<T extends { order?: number }>(body: T): Omit<T, 'order'> & { position?: number } {
  const { order, ...rest } = body;
  return { ...rest, ...(order === undefined ? {} : { position: order }) };
}

export class CourseContentService {
  constructor(private readonly courses: CourseService) {}

  /** Modules in order, each with its lessons in order. */
  async list(courseId: string) {
    const [modules, lessons] = await Promise.all([courseStore.modulesOf(courseId), courseStore.lessonsOf(courseId)]);
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
          await courseStore.createModule(
            { id: crypto.randomUUID(), courseId: course.id, title: body.title, position: body.order },
            transaction,
          ),
        ),
    );
  }

  async updateModule(courseId: string, moduleId: string, body: UpdateModuleBody) {
    return this.courses.write(
      courseId,
      (t) => this.module(courseId, moduleId, t),
      async (_course, module, transaction) => {
        await courseStore.updateModule(module, definedOnly(positioned(body)), transaction);
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
          await courseStore.createLesson(
            {
              id: crypto.randomUUID(),
              courseId: course.id,
              moduleId: module.id,
              title: body.title,
              position: body.order,
              contentUrl: body.contentUrl ?? null,
            },
            transaction,
          ),
        ),
    );
  }

  async updateLesson(courseId: string, lessonId: string, body: UpdateLessonBody) {
    return this.courses.write(
      courseId,
      async (transaction) => {
        const lesson = await courseStore.lockLesson(courseId, lessonId, transaction);
        if (!lesson) throw contentErrors.lessonNotFound();
        return lesson;
      },
      async (_course, lesson, transaction) => {
        await courseStore.updateLesson(lesson, definedOnly(positioned(body)), transaction);
        return presentLesson(lesson);
      },
    );
  }

  private async module(courseId: string, moduleId: string, transaction: Tx): Promise<CourseModule> {
    const module = await courseStore.lockModule(courseId, moduleId, transaction);
    if (!module) throw contentErrors.moduleNotFound();
    return module;
  }
}
