import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

export class OutboxEvent extends Model<InferAttributes<OutboxEvent>, InferCreationAttributes<OutboxEvent>> {
  declare id: string;
  declare dedupKey: string;
  declare merchantId: string;
  declare type: string;
  declare aggregateType: string;
  declare aggregateId: string;
  declare payload: Record<string, unknown>;
  declare createdAt: CreationOptional<Date>;
  declare dispatchedAt: Date | null;

  static initModel(sequelize: Sequelize): void {
    OutboxEvent.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        dedupKey: { type: DataTypes.TEXT, allowNull: false, unique: true },
        merchantId: { type: DataTypes.UUID, allowNull: false },
        type: { type: DataTypes.TEXT, allowNull: false },
        aggregateType: { type: DataTypes.TEXT, allowNull: false },
        aggregateId: { type: DataTypes.TEXT, allowNull: false },
        payload: { type: DataTypes.JSONB, allowNull: false },
        createdAt: DataTypes.DATE,
        dispatchedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'outbox_events', updatedAt: false },
    );
  }
}
