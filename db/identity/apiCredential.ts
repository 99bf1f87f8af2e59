import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

export class ApiCredential extends Model<InferAttributes<ApiCredential>, InferCreationAttributes<ApiCredential>> {
  declare id: string;
  declare merchantId: string | null;
  declare clientId: string;
  /** A label the merchant chose (dashboard credentials); null for older ones. */
  declare name: CreationOptional<string | null>;
  /** Encrypted client secret; decrypt with core/crypto/secretBox. Never log. */
  declare secretCiphertext: string;
  declare scopes: CreationOptional<string[]>;
  declare active: CreationOptional<boolean>;
  declare lastUsedAt: Date | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    ApiCredential.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        merchantId: DataTypes.UUID,
        clientId: { type: DataTypes.TEXT, allowNull: false, unique: true },
        name: DataTypes.TEXT,
        secretCiphertext: { type: DataTypes.TEXT, allowNull: false },
        scopes: { type: DataTypes.ARRAY(DataTypes.TEXT), defaultValue: [] },
        active: { type: DataTypes.BOOLEAN, defaultValue: true },
        lastUsedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'api_credentials' },
    );
  }
}
