import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import { centsColumn } from '../models/centsColumn';

export type BoletoBatchStatus = 'PROCESSING' | 'COMPLETED' | 'COMPLETED_WITH_FAILURES';
export type BoletoItemStatus = 'PENDING' | 'ISSUED' | 'FAILED' | 'CANCELLED';

/** A batch of boletos (POST /boletos with several items); see migration 0017. */
export class BoletoBatch extends Model<InferAttributes<BoletoBatch>, InferCreationAttributes<BoletoBatch>> {
  declare id: string;
  declare merchantId: string;
  declare idempotencyKey: string;
  declare status: BoletoBatchStatus;
  declare itemsCount: number;
  declare issuedCount: CreationOptional<number>;
  declare failedCount: CreationOptional<number>;
  declare cancelledCount: CreationOptional<number>;
  declare fineBps: number;
  declare interestMonthlyBps: number;
  declare graceDays: number;
  declare completedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    BoletoBatch.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        merchantId: { type: DataTypes.UUID, allowNull: false },
        idempotencyKey: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false },
        itemsCount: { type: DataTypes.INTEGER, allowNull: false },
        issuedCount: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        failedCount: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        cancelledCount: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        fineBps: { type: DataTypes.INTEGER, allowNull: false },
        interestMonthlyBps: { type: DataTypes.INTEGER, allowNull: false },
        graceDays: { type: DataTypes.INTEGER, allowNull: false },
        completedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'boleto_batches' },
    );
  }
}

/** One row of a boleto batch: what was asked for and what became of it. */
export class BoletoBatchItem extends Model<InferAttributes<BoletoBatchItem>, InferCreationAttributes<BoletoBatchItem>> {
  declare id: string;
  declare batchId: string;
  declare rowIndex: number;
  declare chargeId: CreationOptional<string | null>;
  declare status: BoletoItemStatus;
  declare amountCents: number;
  /** The merchant's fee for this amount when the batch was accepted. */
  declare feeCents: number;
  declare dueDate: string;
  declare payerName: string;
  declare payerTaxId: string;
  declare payerEmail: string | null;
  declare description: string | null;
  declare externalRef: string | null;
  declare attempts: CreationOptional<number>;
  declare errorCode: CreationOptional<string | null>;
  declare errorMessage: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    BoletoBatchItem.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        batchId: { type: DataTypes.UUID, allowNull: false },
        rowIndex: { type: DataTypes.INTEGER, allowNull: false },
        chargeId: DataTypes.UUID,
        status: { type: DataTypes.TEXT, allowNull: false },
        amountCents: centsColumn('amountCents'),
        feeCents: centsColumn('feeCents'),
        dueDate: { type: DataTypes.DATEONLY, allowNull: false },
        payerName: { type: DataTypes.TEXT, allowNull: false },
        payerTaxId: { type: DataTypes.TEXT, allowNull: false },
        payerEmail: DataTypes.TEXT,
        description: DataTypes.TEXT,
        externalRef: DataTypes.TEXT,
        attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        errorCode: DataTypes.TEXT,
        errorMessage: DataTypes.TEXT,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'boleto_batch_items' },
    );
  }
}
