/**
 * /enrolments (application API, bearer): enrolments created by paid checkouts, lesson progress
 * reported by the producer's platform, and the certificate PDF. See service.ts for roles.
 * Order of checks: the path ids, then the caller's access to the enrolment (404 for another
 * merchant's), then the rest: another merchant's ids never learn anything from a later answer.
 */
import { Router, type Request, type RequestHandler } from 'express';
import { signedIn } from '../../identity/auth/bearer';
import type { MemberRole } from '../../../db/identity';
import { parseOrThrow } from '../../validation/validate';
import { enrolmentIdParam, lessonIdParam, listEnrolmentsQuery } from './schema';
import { ENROLMENT_READERS, ENROLMENT_WRITERS, type EnrolmentService } from './service';

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

function enrolmentHandlers(
  service: EnrolmentService,
): Record<'list' | 'read' | 'progress' | 'complete' | 'certificate', RequestHandler> {
  const enrolment = async (req: Request, allowed: readonly MemberRole[]) => {
    const id = parseOrThrow(enrolmentIdParam, req.params.id, 'enrolment id');
    return service.owned(signedIn(req).user.id, id, allowed);
  };
  return {
    list: async (req, res) => {
      const query = parseOrThrow(listEnrolmentsQuery, req.query, 'query');
      res.json(await service.list(signedIn(req).user.id, query));
    },
    read: async (req, res) => {
      res.json(await service.view(await enrolment(req, ENROLMENT_READERS)));
    },
    progress: async (req, res) => {
      res.json(await service.progress(await enrolment(req, ENROLMENT_READERS)));
    },
    complete: async (req, res) => {
      const e = await enrolment(req, ENROLMENT_WRITERS);
      const lessonId = parseOrThrow(lessonIdParam, req.params.lessonId, 'lessonId');
      res.json(await service.complete(e.id, lessonId));
    },
    certificate: async (req, res) => {
      const { certificateId, pdf } = await service.certificatePdf(await enrolment(req, ENROLMENT_READERS));
      res.set({
        'content-type': 'application/pdf',
        'content-disposition': `inline; filename="certificado-${certificateId}.pdf"`,
        'cache-control': 'private, no-store',
      });
      res.send(pdf);
    },
  };
}
