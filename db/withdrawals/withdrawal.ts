import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import { centsColumn } from '../models/centsColumn';
import type { AccountSnapshot, BeneficiarySnapshot, WithdrawalStatus } from '../../core/withdrawals/rules';

export class Withdrawal extends Model<InferAttributes<Withdrawal>, InferCreationAttributes<Withdrawal>> {
  declare id: string;
  declare merchantId: string;
  declare userId: string | null;
  declare amountCents: number;
  declare feeCents: number;
  declare totalDebitedCents: number;
  declare status: WithdrawalStatus;
  declare description: string | null;
  declare idempotencyKey: string | null;
  declare partnerTxId: string | null;
  /** The provider's own id: internal (reconciliation with the PSP); shown only as an opaque reference. */
  declare providerTransferId: string | null;
  declare providerEndToEndId: string | null;
  declare failureCode: string | null;
  declare failureReason: string | null;
  declare beneficiarySnapshot: BeneficiarySnapshot | null;
  declare sourceAccountSnapshot: AccountSnapshot | null;
  declare createdAt: CreationOptional<Date>;
  declare processedAt: Date | null;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Withdrawal.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        merchantId: { type: DataTypes.UUID, allowNull: false },
        userId: DataTypes.UUID,
        amountCents: centsColumn('amountCents'),
        feeCents: centsColumn('feeCents'),
        totalDebitedCents: centsColumn('totalDebitedCents'),
        status: { type: DataTypes.TEXT, allowNull: false },
        description: DataTypes.TEXT,
        idempotencyKey: DataTypes.TEXT,
        partnerTxId: DataTypes.TEXT,
        providerTransferId: DataTypes.TEXT,
        providerEndToEndId: DataTypes.TEXT,
        failureCode: DataTypes.TEXT,
        failureReason: DataTypes.TEXT,
        beneficiarySnapshot: DataTypes.JSONB,
        sourceAccountSnapshot: DataTypes.JSONB,
        createdAt: DataTypes.DATE,
        processedAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'withdrawals' },
    );
  }
}
