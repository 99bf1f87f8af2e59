import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import { centsColumn, nullableCents } from '../models/centsColumn';

export type CheckoutKind = 'P0' | 'SESSION';
export type CheckoutStatus = 'PENDING' | 'PAID' | 'EXPIRED' | 'CANCELLED' | 'REFUNDED';
export const CHECKOUT_STATUSES = ['PENDING', 'PAID', 'EXPIRED', 'CANCELLED', 'REFUNDED'] as const;

/**
 * A checkout (migration 0020): a partner's P0 checkout or an application-API checkout session,
 * backed by one charge. Written with its charge by recordCharge (activities/charges/record.ts) and moved
 * by the charge's lifecycle (activities/checkouts/checkoutEffects.ts); the API only reads it.
 */
export class Checkout extends Model<InferAttributes<Checkout>, InferCreationAttributes<Checkout>> {
  declare id: string;
  declare merchantId: string;
  declare kind: CheckoutKind;
  declare chargeId: string;
  declare status: CreationOptional<CheckoutStatus>;
  declare amountCents: number;
  declare paidAmountCents: CreationOptional<number | null>;
  declare externalId: string | null;
  declare returnUrl: string | null;
  declare completionUrl: string | null;
  declare metadata: Record<string, unknown>;
  declare idempotencyKey: string | null;
  declare expiresAt: Date;
  declare openedAt: CreationOptional<Date | null>;
  declare paidAt: CreationOptional<Date | null>;
  declare closedAt: CreationOptional<Date | null>;
  declare refundedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Checkout.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        merchantId: { type: DataTypes.UUID, allowNull: false },
        kind: { type: DataTypes.TEXT, allowNull: false },
        chargeId: { type: DataTypes.UUID, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'PENDING' },
        amountCents: centsColumn('amountCents'),
        paidAmountCents: nullableCents('paidAmountCents'),
        externalId: DataTypes.TEXT,
        returnUrl: DataTypes.TEXT,
        completionUrl: DataTypes.TEXT,
        metadata: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        idempotencyKey: DataTypes.TEXT,
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        openedAt: DataTypes.DATE,
        paidAt: DataTypes.DATE,
        closedAt: DataTypes.DATE,
        refundedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'checkouts' },
    );
  }
}

/** One line of a checkout: a course price (P0) or a free-form line (session). */
export class CheckoutItem extends Model<InferAttributes<CheckoutItem>, InferCreationAttributes<CheckoutItem>> {
  declare id: string;
  declare checkoutId: string;
  declare position: number;
  declare priceId: string | null;
  declare courseId: string | null;
  declare name: string | null;
  declare quantity: number;
  declare unitAmountCents: number;

  static initModel(sequelize: Sequelize): void {
    CheckoutItem.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        checkoutId: { type: DataTypes.UUID, allowNull: false },
        position: { type: DataTypes.INTEGER, allowNull: false },
        priceId: DataTypes.UUID,
        courseId: DataTypes.UUID,
        name: DataTypes.TEXT,
        quantity: { type: DataTypes.INTEGER, allowNull: false },
        unitAmountCents: centsColumn('unitAmountCents'),
      },
      { sequelize, tableName: 'checkout_items', timestamps: false },
    );
  }
}
