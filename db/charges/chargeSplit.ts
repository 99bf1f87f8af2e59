import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import { centsColumn } from '../models/centsColumn';

export class ChargeSplit extends Model<InferAttributes<ChargeSplit>, InferCreationAttributes<ChargeSplit>> {
  declare id: string;
  declare chargeId: string;
  declare merchantId: string;
  declare amountCents: number;
  declare percentage: number | null;
  declare position: number;

  static initModel(sequelize: Sequelize): void {
    ChargeSplit.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        chargeId: { type: DataTypes.UUID, allowNull: false },
        merchantId: { type: DataTypes.UUID, allowNull: false },
        amountCents: centsColumn('amountCents'),
        percentage: {
          type: DataTypes.DECIMAL(5, 2),
          get() {
            const v = this.getDataValue('percentage');
            return v === null || v === undefined ? null : Number(v);
          },
        },
        position: { type: DataTypes.INTEGER, allowNull: false },
      },
      { sequelize, tableName: 'charge_splits', timestamps: false },
    );
  }
}
