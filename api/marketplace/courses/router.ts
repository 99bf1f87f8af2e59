/**
 * /courses (application API, bearer): the marketplace catalogue. Courses, their prices, modules
 * and lessons; transitions publish and archive. See service.ts for roles and transitions.
 * Order of checks on a course's routes: the path ids, then the caller's access to the course (404
 * for another merchant's, whatever the body), then the body: another merchant's ids never learn
 * anything from a validation answer.
 */
import { Router, type Request, type RequestHandler } from 'express';
import { signedIn } from '../../identity/auth/bearer';
import type { MemberRole } from '../../../db/identity';
import { parseOrThrow } from '../../validation/validate';
import type { CourseContentService } from './content';
import {
  childIdParam,
  courseIdParam,
  createCourseBody,
  createLessonBody,
  createModuleBody,
  createPriceBody,
  listCoursesQuery,
  updateCourseBody,
  updateLessonBody,
  updateModuleBody,
  updatePriceBody,
} from './schema';
import { COURSE_READERS, COURSE_WRITERS, type CourseService } from './service';

export function coursesRouter(deps: {
  courses: CourseService;
  content: CourseContentService;
  requireUser: RequestHandler;
}): Router {
  const h = courseHandlers(deps.courses, deps.content);
  const router = Router();
  router.use(deps.requireUser);
  router.post('/', h.create);
  router.get('/', h.list);
  router.get('/:id', h.read);
  router.patch('/:id', h.update);
  router.post('/:id/publish', h.publish);
  router.post('/:id/archive', h.archive);
  router.post('/:id/prices', h.createPrice);
  router.get('/:id/prices', h.listPrices);
  router.patch('/:id/prices/:priceId', h.updatePrice);
  router.post('/:id/modules', h.createModule);
  router.get('/:id/modules', h.listModules);
  router.patch('/:id/modules/:moduleId', h.updateModule);
  router.post('/:id/modules/:moduleId/lessons', h.createLesson);
  router.patch('/:id/lessons/:lessonId', h.updateLesson);
  return router;
}

type Names =
  | 'create'
  | 'list'
  | 'read'
  | 'update'
  | 'publish'
  | 'archive'
  | 'createPrice'
  | 'listPrices'
  | 'updatePrice'
  | 'createModule'
  | 'listModules'
  | 'updateModule'
  | 'createLesson'
  | 'updateLesson';

function courseHandlers(courses: CourseService, content: CourseContentService): Record<Names, RequestHandler> {
  /** The course of `:id` the caller may read or write (404 / 403), and the request body. */
  const course = async (req: Request, allowed: readonly MemberRole[]) => {
    const id = parseOrThrow(courseIdParam, req.params.id, 'course id');
    return courses.owned(signedIn(req).user.id, id, allowed);
  };
  const child = (req: Request, name: 'priceId' | 'moduleId' | 'lessonId') =>
    parseOrThrow(childIdParam, req.params[name], name);
  const body = (req: Request) => (req.body as unknown) ?? {};

  return {
    create: async (req, res) => {
      const input = parseOrThrow(createCourseBody, req.body);
      res.status(201).json(await courses.create(signedIn(req).user.id, input));
    },
    list: async (req, res) => {
      const query = parseOrThrow(listCoursesQuery, req.query, 'query');
      res.json(await courses.list(signedIn(req).user.id, query));
    },
    read: async (req, res) => {
      res.json(courses.view(await course(req, COURSE_READERS)));
    },
    update: async (req, res) => {
      const c = await course(req, COURSE_WRITERS);
      res.json(await courses.update(c.id, parseOrThrow(updateCourseBody, body(req))));
    },
    publish: async (req, res) => {
      res.json(await courses.publish((await course(req, COURSE_WRITERS)).id));
    },
    archive: async (req, res) => {
      res.json(await courses.archive((await course(req, COURSE_WRITERS)).id));
    },
    createPrice: async (req, res) => {
      const c = await course(req, COURSE_WRITERS);
      res.status(201).json(await courses.createPrice(c.id, parseOrThrow(createPriceBody, body(req))));
    },
    listPrices: async (req, res) => {
      res.json(await courses.listPrices((await course(req, COURSE_READERS)).id));
    },
    updatePrice: async (req, res) => {
      const c = await course(req, COURSE_WRITERS);
      const priceId = child(req, 'priceId');
      res.json(await courses.updatePrice(c.id, priceId, parseOrThrow(updatePriceBody, body(req))));
    },
    createModule: async (req, res) => {
      const c = await course(req, COURSE_WRITERS);
      res.status(201).json(await content.createModule(c.id, parseOrThrow(createModuleBody, body(req))));
    },
    listModules: async (req, res) => {
      res.json(await content.list((await course(req, COURSE_READERS)).id));
    },
    updateModule: async (req, res) => {
      const c = await course(req, COURSE_WRITERS);
      const moduleId = child(req, 'moduleId');
      res.json(await content.updateModule(c.id, moduleId, parseOrThrow(updateModuleBody, body(req))));
    },
    createLesson: async (req, res) => {
      const c = await course(req, COURSE_WRITERS);
      const moduleId = child(req, 'moduleId');
      res.status(201).json(await content.createLesson(c.id, moduleId, parseOrThrow(createLessonBody, body(req))));
    },
    updateLesson: async (req, res) => {
      const c = await course(req, COURSE_WRITERS);
      const lessonId = child(req, 'lessonId');
      res.json(await content.updateLesson(c.id, lessonId, parseOrThrow(updateLessonBody, body(req))));
    },
  };
}
