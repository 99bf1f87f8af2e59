import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

export const MEMBER_ROLES = ['owner', 'admin', 'finance', 'viewer'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** What a user may do for one merchant. */
export class MerchantMember extends Model<InferAttributes<MerchantMember>, InferCreationAttributes<MerchantMember>> {
  declare userId: string;
  declare merchantId: string;
  declare role: MemberRole;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    MerchantMember.init(
      {
        userId: { type: DataTypes.UUID, primaryKey: true },
        merchantId: { type: DataTypes.UUID, primaryKey: true },
        role: { type: DataTypes.TEXT, allowNull: false },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'merchant_members', updatedAt: false },
    );
  }
}
