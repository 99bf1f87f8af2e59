/**
 * HTTP ↔ CourseService / CourseContentService (router.ts). Order of checks on a course's routes:
 * the path ids, then the caller's access to the course (404 for another merchant's, whatever the
 * body), then the body: another merchant's ids never learn anything from a validation answer.
 */
import type { Request, RequestHandler } from 'express';
import { signedIn } from '../../identity/auth/bearer';
import type { MemberRole } from '../../../db/identity/merchantMember';
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

export function courseHandlers(courses: CourseService, content: CourseContentService): Record<Names, RequestHandler> {
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
