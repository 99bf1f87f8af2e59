import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

export class IdempotencyRecord extends Model<
  InferAttributes<IdempotencyRecord>,
  InferCreationAttributes<IdempotencyRecord>
> {
  declare merchantId: string;
  declare scope: string;
  declare key: string;
  declare requestHash: string;
  declare state: 'IN_PROGRESS' | 'COMPLETED';
  declare resourceId: string;
  declare responseStatus: number | null;
  declare responseBody: unknown;
  declare lockedUntil: Date;
  declare expiresAt: Date;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    IdempotencyRecord.init(
      {
        merchantId: { type: DataTypes.UUID, primaryKey: true },
        scope: { type: DataTypes.TEXT, primaryKey: true },
        key: { type: DataTypes.TEXT, primaryKey: true },
        requestHash: { type: DataTypes.TEXT, allowNull: false },
        state: { type: DataTypes.TEXT, allowNull: false },
        resourceId: { type: DataTypes.TEXT, allowNull: false },
        responseStatus: DataTypes.INTEGER,
        responseBody: DataTypes.JSONB,
        lockedUntil: { type: DataTypes.DATE, allowNull: false },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'idempotency_records' },
    );
  }
}
