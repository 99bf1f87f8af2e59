/**
 * A course's content: modules, and lessons inside them (migration 0020). The API calls the
 * column `position` "order" (a reserved word in SQL). Equal orders are allowed; ties read in
 * creation order.
 */
import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

export class CourseModule extends Model<InferAttributes<CourseModule>, InferCreationAttributes<CourseModule>> {
  declare id: string;
  declare courseId: string;
  declare title: string;
  declare position: number;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    CourseModule.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        courseId: { type: DataTypes.UUID, allowNull: false },
        title: { type: DataTypes.TEXT, allowNull: false },
        position: { type: DataTypes.INTEGER, allowNull: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'course_modules' },
    );
  }
}

/** A lesson; course_id is its module's course (denormalised: lessons of a course in one read). */
export class CourseLesson extends Model<InferAttributes<CourseLesson>, InferCreationAttributes<CourseLesson>> {
  declare id: string;
  declare courseId: string;
  declare moduleId: string;
  declare title: string;
  declare position: number;
  declare contentUrl: string | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    CourseLesson.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        courseId: { type: DataTypes.UUID, allowNull: false },
        moduleId: { type: DataTypes.UUID, allowNull: false },
        title: { type: DataTypes.TEXT, allowNull: false },
        position: { type: DataTypes.INTEGER, allowNull: false },
        contentUrl: DataTypes.TEXT,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'course_lessons' },
    );
  }
}
