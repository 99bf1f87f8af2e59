/**
 * The marketplace domain's tables: courses (courses, course_prices, course_modules,
 * course_lessons) and enrolments (enrolments, lesson_progress, certificates), each group written
 * by one store here. Models are exported as types only.
 */
export * as courseStore from './courseStore';
