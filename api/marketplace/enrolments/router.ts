/**
 * /enrolments (application API, bearer): enrolments created by paid checkouts, lesson progress
 * reported by the producer's platform, and the certificate PDF. See service.ts for roles.
 */
import { Router, type RequestHandler } from 'express';
import { enrolmentHandlers } from './handler';
import type { EnrolmentService } from './service';

export const ENROLMENTS_PATH = '/enrolments';

export function enrolmentsRouter(deps: { service: EnrolmentService; requireUser: RequestHandler }): Router {
  const h = enrolmentHandlers(deps.service);
  const router = Router();
  router.use(deps.requireUser);
  router.get('/', h.list);
  router.get('/:id', h.read);
  router.get('/:id/progress', h.progress);
  router.post('/:id/lessons/:lessonId/complete', h.complete);
  router.get('/:id/certificate', h.certificate);
  return router;
}
