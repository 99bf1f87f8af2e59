import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import { centsColumn } from '../models/centsColumn';

export type PayoutBatchStatus =
  'CREATED' | 'PROCESSING' | 'COMPLETED' | 'COMPLETED_WITH_FAILURES' | 'FAILED' | 'CANCELLED';

export class PayoutBatch extends Model<InferAttributes<PayoutBatch>, InferCreationAttributes<PayoutBatch>> {
  declare id: string;
  declare merchantId: string;
  declare idempotencyKey: string;
  declare status: PayoutBatchStatus;
  declare description: string | null;
  declare metadata: Record<string, unknown> | null;
  declare itemsCount: number;
  declare totalAmountCents: number;
  declare totalFeeCents: number;
  declare cancelReason: string | null;
  /** The merchant's own PSP connection the batch is paid from; null: the platform's account (migration 0035). */
  declare pspConnectionId: CreationOptional<string | null>;
  declare releasedAmountCents: CreationOptional<number>;
  declare completedAt: Date | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    PayoutBatch.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        merchantId: { type: DataTypes.UUID, allowNull: false },
        idempotencyKey: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false },
        description: DataTypes.TEXT,
        metadata: DataTypes.JSONB,
        itemsCount: { type: DataTypes.INTEGER, allowNull: false },
        totalAmountCents: centsColumn('totalAmountCents'),
        totalFeeCents: centsColumn('totalFeeCents'),
        cancelReason: DataTypes.TEXT,
        pspConnectionId: DataTypes.UUID,
        releasedAmountCents: { ...centsColumn('releasedAmountCents'), defaultValue: 0 },
        completedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'payout_batches' },
    );
  }
}
