import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import { centsColumn } from '../models/centsColumn';

export type PayoutItemStatus = 'PENDING' | 'SENDING' | 'PAID' | 'FAILED' | 'CANCELLED';

export class PayoutItem extends Model<InferAttributes<PayoutItem>, InferCreationAttributes<PayoutItem>> {
  declare id: string;
  declare batchId: string;
  declare merchantId: string;
  declare rowIndex: number;
  declare status: PayoutItemStatus;
  declare amountCents: number;
  declare feeCents: number;
  declare pixKey: string;
  declare pixKeyType: string;
  declare recipientName: string;
  declare recipientDocument: string | null;
  declare referenceId: string | null;
  declare providerTransferId: string | null;
  declare endToEndId: string | null;
  declare lastError: string | null;
  declare lastErrorCode: string | null;
  declare attempts: CreationOptional<number>;
  declare settledAt: Date | null;
  declare releasedAt: Date | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    PayoutItem.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        batchId: { type: DataTypes.UUID, allowNull: false },
        merchantId: { type: DataTypes.UUID, allowNull: false },
        rowIndex: { type: DataTypes.INTEGER, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false },
        amountCents: centsColumn('amountCents'),
        feeCents: centsColumn('feeCents'),
        pixKey: { type: DataTypes.TEXT, allowNull: false },
        pixKeyType: { type: DataTypes.TEXT, allowNull: false },
        recipientName: { type: DataTypes.TEXT, allowNull: false },
        recipientDocument: DataTypes.TEXT,
        referenceId: DataTypes.TEXT,
        providerTransferId: DataTypes.TEXT,
        endToEndId: DataTypes.TEXT,
        lastError: DataTypes.TEXT,
        lastErrorCode: DataTypes.TEXT,
        attempts: { type: DataTypes.INTEGER, defaultValue: 0 },
        settledAt: DataTypes.DATE,
        releasedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'payout_items' },
    );
  }
}
