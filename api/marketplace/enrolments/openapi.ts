/** OpenAPI for /enrolments (router.ts), from the schemas that validate it (schema.ts). */
import { z } from 'zod';
import { bearerPaths, errorResponses, jsonResponse, Pagination, registry } from '../../openapi/registry';
import type { ErrorCode } from '../../openapi/errorCodes';
import { enrolmentView, listEnrolmentsQuery, progressDetailView } from './schema';

// Derived copies (.describe): the routers import schema.ts before the registry extends zod.
const Enrolment = registry.register(
  'Enrolment',
  enrolmentView.describe('A student’s access to a course, created when a checkout selling it is paid.'),
);
const EnrolmentList = registry.register(
  'EnrolmentList',
  z.object({ data: z.array(Enrolment), pagination: Pagination }).describe('Newest first.'),
);
const EnrolmentProgress = registry.register(
  'EnrolmentProgress',
  progressDetailView.describe('Lessons completed of the course’s lessons.'),
);

const idParam = z.object({ id: z.uuid().openapi({ description: 'Enrolment id.' }) });
const bearerErrors = ['AUTHENTICATION_REQUIRED', 'INVALID_ACCESS_TOKEN', 'RATE_LIMITED'] as const;
const readErrors = (...more: ErrorCode[]) =>
  errorResponses('VALIDATION_ERROR', 'ENROLMENT_NOT_FOUND', ...more, ...bearerErrors);

const ROLES = 'Any member of the enrolment’s merchant reads. Another merchant’s enrolment → 404 ENROLMENT_NOT_FOUND.';

const path = bearerPaths('Enrolments');

path('get', '/enrolments', 'listEnrolments', 'List a merchant’s enrolments', {
  description: 'Filter by course and status. A merchant you do not belong to → 404 MERCHANT_NOT_FOUND.',
  request: { query: listEnrolmentsQuery },
  responses: {
    200: jsonResponse('A page of enrolments.', EnrolmentList),
    ...errorResponses('VALIDATION_ERROR', 'MERCHANT_NOT_FOUND', ...bearerErrors),
  },
});

path('get', '/enrolments/{id}', 'getEnrolment', 'Read an enrolment, with its progress and certificate', {
  description: ROLES,
  request: { params: idParam },
  responses: { 200: jsonResponse('The enrolment.', Enrolment), ...readErrors() },
});

path('get', '/enrolments/{id}/progress', 'getEnrolmentProgress', 'An enrolment’s progress', {
  description: ROLES,
  request: { params: idParam },
  responses: { 200: jsonResponse('The progress.', EnrolmentProgress), ...readErrors() },
});

path('post', '/enrolments/{id}/lessons/{lessonId}/complete', 'completeLesson', 'Mark a lesson completed', {
  description:
    'The producer’s platform reports progress on the learner’s behalf (learners have no accounts here): call it when the learner finishes a lesson. ' +
    'Idempotent: completing a lesson again changes nothing and answers the same progress. When every lesson of the course is completed, the certificate is issued, exactly once. ' +
    'The lesson must belong to the enrolment’s course (else 404 LESSON_NOT_FOUND); a REVOKED enrolment → 409 ENROLMENT_REVOKED; one without access now (a subscription’s PENDING, SUSPENDED or CANCELLED) → 409 ENROLMENT_WITHOUT_ACCESS. ' +
    'Owner, admin and finance record progress (a viewer → 403 INSUFFICIENT_ROLE). Another merchant’s enrolment → 404 ENROLMENT_NOT_FOUND.',
  request: {
    params: z.object({
      id: z.uuid().openapi({ description: 'Enrolment id.' }),
      lessonId: z.uuid().openapi({ description: 'Lesson id (of the enrolment’s course).' }),
    }),
  },
  responses: {
    200: jsonResponse('The progress after it.', EnrolmentProgress),
    ...readErrors('LESSON_NOT_FOUND', 'ENROLMENT_REVOKED', 'ENROLMENT_WITHOUT_ACCESS', 'INSUFFICIENT_ROLE'),
  },
});

path('get', '/enrolments/{id}/certificate', 'getEnrolmentCertificate', 'The certificate PDF', {
  description:
    '"Certificado de conclusão": student, course, producer, issue date (Brasília), certificate id and a verification code with its QR code. Check it at GET /receipts/verify?code=… (the same public route as receipts). ' +
    `Before every lesson is completed, or when the enrolment is REVOKED → 409 CERTIFICATE_UNAVAILABLE. ${ROLES}`,
  request: { params: idParam },
  responses: {
    200: { description: 'The PDF.', content: { 'application/pdf': { schema: z.string().meta({ format: 'binary' }) } } },
    ...readErrors('CERTIFICATE_UNAVAILABLE'),
  },
});
