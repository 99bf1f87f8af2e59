/**
 * Courses and their prices (application API). A signed-in member of a merchant reads its courses;
 * owner, admin and finance (the roles that create charges) write them. Another merchant's course
 * is 404 COURSE_NOT_FOUND, whatever the caller's roles elsewhere: existence never leaks.
 *
 * Transitions: DRAFT → PUBLISHED (publish), DRAFT | PUBLISHED → ARCHIVED (archive). Repeating a
 * transition answers the course unchanged; publishing an ARCHIVED course is 409
 * INVALID_COURSE_TRANSITION. An ARCHIVED course is read-only (409 COURSE_ARCHIVED): it, its
 * prices, modules and lessons. Writes lock the course row, so an archive and a write never
 * interleave. Only PUBLISHED courses sell (the checkout routes check it).
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { merchantStore, type MemberRole } from '../../../db/identity';
import { courseStore, type Course } from '../../../db/marketplace';
import type { Tx } from '../../../db/tx';
import { ANY_ROLE, defaultMerchantOf, requireRole, roleErrors } from '../../identity/auth/roles';
import { ApiError } from '../../errors/apiError';
import { CHARGE_WRITERS } from '../../charges/service';
import { presentCourse, presentPrice } from './presenter';
import type { CreateCourseBody, CreatePriceBody, ListCoursesQuery, UpdateCourseBody, UpdatePriceBody } from './schema';

/** Who may write the catalogue: the roles that may create charges. Every member reads. */
export const COURSE_WRITERS: readonly MemberRole[] = CHARGE_WRITERS;
export const COURSE_READERS = ANY_ROLE;

export const courseErrors = {
  notFound: () => new ApiError(404, 'COURSE_NOT_FOUND', 'course not found'),
  priceNotFound: () => new ApiError(404, 'PRICE_NOT_FOUND', 'price not found'),
  archived: () =>
    new ApiError(409, 'COURSE_ARCHIVED', 'the course is ARCHIVED: it, its prices, modules and lessons are read-only'),
  invalidTransition: (from: string, to: string) =>
    new ApiError(409, 'INVALID_COURSE_TRANSITION', `the course is ${from}; it cannot become ${to}`, {
      status: from,
      requested: to,
    }),
};

export class CourseService {
  constructor(private readonly deps: { sequelize: Sequelize }) {}

  async create(userId: string, body: CreateCourseBody) {
    await requireRole(userId, body.merchantId, COURSE_WRITERS);
    const merchant = await merchantStore.findMerchant(body.merchantId);
    if (!merchant || !merchant.active) throw roleErrors.merchantNotFound();
    const course = await courseStore.createCourse({
      id: crypto.randomUUID(),
      merchantId: merchant.id,
      title: body.title,
      description: body.description,
      thumbnailUrl: body.thumbnailUrl ?? null,
      accessType: body.accessType,
    });
    return presentCourse(course);
  }

  async list(userId: string, query: ListCoursesQuery) {
    const merchantId = query.merchantId ?? (await defaultMerchantOf(userId));
    await requireRole(userId, merchantId, COURSE_READERS);
    const { rows, count } = await courseStore.listCourses({
      merchantId,
      status: query.status,
      limit: query.limit,
      offset: query.offset,
    });
    return {
      data: rows.map(presentCourse),
      pagination: {
        total: count,
        limit: query.limit,
        offset: query.offset,
        hasMore: query.offset + rows.length < count,
      },
    };
  }

  view(course: Course) {
    return presentCourse(course);
  }

  /** The course, when the caller is a member of its merchant with an allowed role; else 404 (not a member) or 403. */
  async owned(userId: string, courseId: string, allowed: readonly MemberRole[]): Promise<Course> {
    const course = await courseStore.findCourse(courseId);
    if (!course) throw courseErrors.notFound();
    try {
      await requireRole(userId, course.merchantId, allowed);
    } catch (err) {
      // Not a member: the course does not exist for this caller.
      if ((err as ApiError).code === 'MERCHANT_NOT_FOUND') throw courseErrors.notFound();
      throw err;
    }
    return course;
  }

  /**
   * Runs `write` with the course row locked, unless the course is ARCHIVED (409). `lookup` runs
   * first, so a missing child (price, module, lesson) is 404 whatever the course's status.
   */
  async write<C, T>(
    courseId: string,
    lookup: (t: Tx) => Promise<C>,
    write: (course: Course, child: C, t: Tx) => Promise<T>,
  ): Promise<T> {
    return this.deps.sequelize.transaction(async (t) => {
      const course = await courseStore.lockCourse(courseId, t);
      if (!course) throw courseErrors.notFound();
      const child = await lookup(t);
      if (course.status === 'ARCHIVED') throw courseErrors.archived();
      return write(course, child, t);
    });
  }

  async update(courseId: string, body: UpdateCourseBody) {
    return this.write(
      courseId,
      async () => null,
      async (course, _none, transaction) => {
        await courseStore.updateCourse(course, definedOnly(body), transaction);
        return presentCourse(course);
      },
    );
  }

  /** DRAFT → PUBLISHED; PUBLISHED answers unchanged; ARCHIVED → 409 INVALID_COURSE_TRANSITION. */
  async publish(courseId: string) {
    return this.transition(courseId, (course) => {
      if (course.status === 'PUBLISHED') return null;
      if (course.status === 'ARCHIVED') throw courseErrors.invalidTransition('ARCHIVED', 'PUBLISHED');
      return { status: 'PUBLISHED', publishedAt: new Date() };
    });
  }

  /** DRAFT | PUBLISHED → ARCHIVED; ARCHIVED answers unchanged. */
  async archive(courseId: string) {
    return this.transition(courseId, (course) => {
      if (course.status === 'ARCHIVED') return null;
      return { status: 'ARCHIVED', archivedAt: new Date() };
    });
  }

  /** `move` answers the change a transition makes, or null when the course is already there. */
  private async transition(
    courseId: string,
    move: (course: Course) => (Pick<Course, 'status'> & Partial<Pick<Course, 'publishedAt' | 'archivedAt'>>) | null,
  ) {
    return this.deps.sequelize.transaction(async (transaction) => {
      const course = await courseStore.lockCourse(courseId, transaction);
      if (!course) throw courseErrors.notFound();
      const change = move(course);
      if (change) await courseStore.updateCourse(course, change, transaction);
      return presentCourse(course);
    });
  }

  // --- prices ---------------------------------------------------------------------------------

  async listPrices(courseId: string) {
    const prices = await courseStore.pricesOf(courseId);
    return { data: prices.map(presentPrice) };
  }

  async createPrice(courseId: string, body: CreatePriceBody) {
    return this.write(
      courseId,
      async () => null,
      async (course, _none, transaction) => {
        const price = await courseStore.createPrice(
          {
            id: crypto.randomUUID(),
            courseId: course.id,
            merchantId: course.merchantId,
            amountCents: body.amountCents,
            type: body.type,
            active: body.active,
            // Migration 0045's CHECK: a SUBSCRIPTION price carries both, the others neither.
            ...(body.type === 'SUBSCRIPTION'
              ? { interval: body.interval ?? 'MONTHLY', retryPolicy: body.retryPolicy ?? 'PERMITE_3R_7D' }
              : { interval: null, retryPolicy: null }),
          },
          transaction,
        );
        return presentPrice(price);
      },
    );
  }

  /** Later checkouts see the change; a checkout item keeps the amount it was created with. */
  async updatePrice(courseId: string, priceId: string, body: UpdatePriceBody) {
    return this.write(
      courseId,
      async (transaction) => {
        const price = await courseStore.lockPrice(courseId, priceId, transaction);
        if (!price) throw courseErrors.priceNotFound();
        return price;
      },
      async (_course, price, transaction) => {
        await courseStore.updatePrice(price, definedOnly(body), transaction);
        return presentPrice(price);
      },
    );
  }
}

/** The fields a PATCH body names (undefined = not given; null = clear). */
export function definedOnly<T extends object>(body: T): Partial<T> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as Partial<T>;
}
