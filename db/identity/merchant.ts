import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';
import type { PixKeyType } from '../../core/provider';

export class Merchant extends Model<InferAttributes<Merchant>, InferCreationAttributes<Merchant>> {
  declare id: string;
  declare name: string;
  declare email: string | null;
  declare document: string | null;
  declare documentType: 'CPF' | 'CNPJ' | null;
  declare type: CreationOptional<'PRODUCER' | 'RIFEIRO'>;
  declare active: CreationOptional<boolean>;
  declare payoutsEnabled: CreationOptional<boolean>;
  declare withdrawalsFrozen: CreationOptional<boolean>;
  declare pixFeeBps: number | null;
  declare pixFeeFixedCents: number | null;
  declare payoutFeeCents: CreationOptional<number>;
  /** The merchant's own Pix key, where withdrawals go (set by an operator; see core/pixKeys). */
  declare pixKey: CreationOptional<string | null>;
  declare pixKeyType: CreationOptional<PixKeyType | null>;
  declare pixKeyHolderName: CreationOptional<string | null>;
  declare pixKeyHolderDocument: CreationOptional<string | null>;
  declare withdrawalFeeCents: CreationOptional<number>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Merchant.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        name: { type: DataTypes.TEXT, allowNull: false },
        email: DataTypes.TEXT,
        document: DataTypes.TEXT,
        documentType: DataTypes.TEXT,
        type: { type: DataTypes.TEXT, defaultValue: 'PRODUCER' },
        active: { type: DataTypes.BOOLEAN, defaultValue: true },
        payoutsEnabled: { type: DataTypes.BOOLEAN, defaultValue: false },
        withdrawalsFrozen: { type: DataTypes.BOOLEAN, defaultValue: false },
        pixFeeBps: DataTypes.INTEGER,
        pixFeeFixedCents: DataTypes.INTEGER,
        payoutFeeCents: { type: DataTypes.INTEGER, defaultValue: 0 },
        pixKey: DataTypes.TEXT,
        pixKeyType: DataTypes.TEXT,
        pixKeyHolderName: DataTypes.TEXT,
        pixKeyHolderDocument: DataTypes.TEXT,
        withdrawalFeeCents: { type: DataTypes.INTEGER, defaultValue: 0 },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'merchants' },
    );
  }
}
