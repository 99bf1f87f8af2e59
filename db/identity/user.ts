import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

/** A person who signs in to the application API. Deleted accounts keep their row (money records point at it) with personal data erased. */
export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
  declare id: string;
  /** Lower-cased; null once the account is deleted. */
  declare email: string | null;
  /** argon2id; never logged, never answered. */
  declare passwordHash: string | null;
  declare name: string;
  declare phone: string | null;
  declare document: string | null;
  declare documentType: 'CPF' | 'CNPJ' | null;
  declare kycStatus: CreationOptional<string | null>;
  declare avatarKey: CreationOptional<string | null>;
  declare avatarUrl: CreationOptional<string | null>;
  /** The gateway's own staff (set by the CLI `user operator`): may reconcile every merchant at once. */
  declare platformOperator: CreationOptional<boolean>;
  declare deletedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    User.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        email: DataTypes.TEXT,
        passwordHash: DataTypes.TEXT,
        name: { type: DataTypes.TEXT, allowNull: false },
        phone: DataTypes.TEXT,
        document: DataTypes.TEXT,
        documentType: DataTypes.TEXT,
        kycStatus: DataTypes.TEXT,
        avatarKey: DataTypes.TEXT,
        avatarUrl: DataTypes.TEXT,
        platformOperator: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        deletedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'users' },
    );
  }
}
