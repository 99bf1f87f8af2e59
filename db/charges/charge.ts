import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import { centsColumn, nullableCents } from '../models/centsColumn';

export type ChargeStatus = 'PENDING' | 'PAID' | 'EXPIRED' | 'CANCELLED';

export interface StoredPix {
  qrCode: string;
  copyPaste: string;
  expiresAt: string;
}

export interface ChargePayerDetails {
  name: string;
  taxId: string;
  email: string | null;
}

export class Charge extends Model<InferAttributes<Charge>, InferCreationAttributes<Charge>> {
  declare id: string;
  declare merchantId: string;
  declare amountCents: number;
  declare feeCents: number;
  declare currency: CreationOptional<string>;
  declare method: CreationOptional<string>;
  declare status: ChargeStatus;
  declare description: string | null;
  declare externalRef: string | null;
  declare metadata: Record<string, unknown> | null;
  declare pix: StoredPix | null;
  declare payerSnapshot: Record<string, unknown> | null;
  /** Who the charge is addressed to (application API `payer`); null for seller charges. */
  declare payerDetails: CreationOptional<ChargePayerDetails | null>;
  declare providerChargeId: string | null;
  declare pixTxid: string | null;
  /** The merchant's own PSP connection the charge was issued on; null: the platform's account (migration 0035). */
  declare pspConnectionId: CreationOptional<string | null>;
  declare endToEndId: string | null;
  declare idempotencyKey: string | null;
  declare expiresAt: Date;
  declare paidAt: Date | null;
  declare expiredAt: Date | null;
  declare cancelledAt: Date | null;
  declare paidAfterExpiry: CreationOptional<boolean>;
  /** Boleto charges only (migration 0015); null/false on Pix charges. */
  declare boletoProviderId: CreationOptional<string | null>;
  declare boletoBankCode: CreationOptional<string | null>;
  declare boletoNossoNumero: CreationOptional<string | null>;
  declare boletoBarcode: CreationOptional<string | null>;
  declare boletoDigitableLine: CreationOptional<string | null>;
  /** 'YYYY-MM-DD' (a calendar day, Brasília). */
  declare boletoDueDate: CreationOptional<string | null>;
  declare boletoFineBps: CreationOptional<number | null>;
  declare boletoInterestMonthlyBps: CreationOptional<number | null>;
  declare boletoGraceDays: CreationOptional<number | null>;
  /** What the provider says was paid (may differ from amountCents), and the fee taken on it. */
  declare boletoPaidAmountCents: CreationOptional<number | null>;
  declare boletoPaidFeeCents: CreationOptional<number | null>;
  declare boletoPaidVia: CreationOptional<'BOLETO' | 'PIX' | null>;
  declare boletoLate: CreationOptional<boolean>;
  declare boletoUnderpaid: CreationOptional<boolean>;
  declare boletoOverpaid: CreationOptional<boolean>;
  /** A subscription cycle's charge (migration 0045): settled by the subscription's workflow only, never by a charge lifecycle. */
  declare subscriptionId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Charge.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        merchantId: { type: DataTypes.UUID, allowNull: false },
        amountCents: centsColumn('amountCents'),
        feeCents: centsColumn('feeCents'),
        currency: { type: DataTypes.TEXT, defaultValue: 'BRL' },
        method: { type: DataTypes.TEXT, defaultValue: 'PIX' },
        status: { type: DataTypes.TEXT, allowNull: false },
        description: DataTypes.TEXT,
        externalRef: DataTypes.TEXT,
        metadata: DataTypes.JSONB,
        pix: DataTypes.JSONB,
        payerSnapshot: DataTypes.JSONB,
        payerDetails: DataTypes.JSONB,
        providerChargeId: DataTypes.TEXT,
        pixTxid: DataTypes.TEXT,
        pspConnectionId: DataTypes.UUID,
        endToEndId: DataTypes.TEXT,
        idempotencyKey: DataTypes.TEXT,
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        paidAt: DataTypes.DATE,
        expiredAt: DataTypes.DATE,
        cancelledAt: DataTypes.DATE,
        paidAfterExpiry: { type: DataTypes.BOOLEAN, defaultValue: false },
        boletoProviderId: DataTypes.TEXT,
        boletoBankCode: DataTypes.TEXT,
        boletoNossoNumero: DataTypes.TEXT,
        boletoBarcode: DataTypes.TEXT,
        boletoDigitableLine: DataTypes.TEXT,
        boletoDueDate: DataTypes.DATEONLY,
        boletoFineBps: DataTypes.INTEGER,
        boletoInterestMonthlyBps: DataTypes.INTEGER,
        boletoGraceDays: DataTypes.INTEGER,
        boletoPaidAmountCents: nullableCents('boletoPaidAmountCents'),
        boletoPaidFeeCents: nullableCents('boletoPaidFeeCents'),
        boletoPaidVia: DataTypes.TEXT,
        boletoLate: { type: DataTypes.BOOLEAN, defaultValue: false },
        boletoUnderpaid: { type: DataTypes.BOOLEAN, defaultValue: false },
        boletoOverpaid: { type: DataTypes.BOOLEAN, defaultValue: false },
        subscriptionId: DataTypes.UUID,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'charges' },
    );
  }
}
