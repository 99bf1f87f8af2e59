/**
 * /courses (application API, bearer): the marketplace catalogue. Courses, their prices, modules
 * and lessons; transitions publish and archive. See service.ts for roles and transitions.
 */
import { Router, type RequestHandler } from 'express';
import { courseHandlers } from './handler';
import type { CourseContentService } from './content';
import type { CourseService } from './service';

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
