import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import { centsColumn } from '../models/centsColumn';
import type { RefundShares } from '../../core/refunds/shares';
import type { PixKeyOwner, PixKeyType } from '../../core/provider';

export interface RefundDestination {
  pixKey: string;
  pixKeyType: PixKeyType;
  name: string;
  /** The boleto payer's document: the transfer names it, and the key's owner must have it. */
  document: string | null;
  /** The directory's (DICT's) answer for the key when the refund was accepted (owner, masked document, bank). */
  directory?: Omit<PixKeyOwner, 'key' | 'keyType'> & { checkedAt: string };
}

export type RefundStatus = 'PROCESSING' | 'SUCCEEDED' | 'FAILED';

/** A refund of (part of) a paid charge; see migration 0016. */
export class Refund extends Model<InferAttributes<Refund>, InferCreationAttributes<Refund>> {
  declare id: string;
  declare chargeId: string;
  declare merchantId: string;
  declare amountCents: number;
  declare reason: string;
  declare status: RefundStatus;
  declare shares: RefundShares;
  declare idempotencyKey: string | null;
  declare requestedBy: string | null;
  /** A boleto's refund: the Pix key it is sent to (a Pix charge's refund returns the payment instead). */
  declare destination: CreationOptional<RefundDestination | null>;
  /** The accepted Pix infraction (MED) this refund returns the money of; sent even while the merchant is frozen. */
  declare medInfractionId: CreationOptional<string | null>;
  declare providerTransferId: CreationOptional<string | null>;
  declare endToEndId: CreationOptional<string | null>;
  declare failureCode: CreationOptional<string | null>;
  declare failureReason: CreationOptional<string | null>;
  declare settledAt: CreationOptional<Date | null>;
  declare releasedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Refund.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        chargeId: { type: DataTypes.UUID, allowNull: false },
        merchantId: { type: DataTypes.UUID, allowNull: false },
        amountCents: centsColumn('amountCents'),
        reason: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false },
        shares: { type: DataTypes.JSONB, allowNull: false },
        idempotencyKey: DataTypes.TEXT,
        requestedBy: DataTypes.UUID,
        destination: DataTypes.JSONB,
        medInfractionId: DataTypes.UUID,
        providerTransferId: DataTypes.TEXT,
        endToEndId: DataTypes.TEXT,
        failureCode: DataTypes.TEXT,
        failureReason: DataTypes.TEXT,
        settledAt: DataTypes.DATE,
        releasedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'refunds' },
    );
  }
}
