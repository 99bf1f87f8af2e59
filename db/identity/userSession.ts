import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

/** One login: the family of its rotating refresh tokens. Access tokens name it (`sid`) and die with it. */
export class UserSession extends Model<InferAttributes<UserSession>, InferCreationAttributes<UserSession>> {
  declare id: string;
  declare userId: string;
  declare lastUsedAt: CreationOptional<Date>;
  declare revokedAt: CreationOptional<Date | null>;
  declare revokedReason: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    UserSession.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        userId: { type: DataTypes.UUID, allowNull: false },
        lastUsedAt: DataTypes.DATE,
        revokedAt: DataTypes.DATE,
        revokedReason: DataTypes.TEXT,
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'user_sessions', updatedAt: false },
    );
  }
}

/** A refresh token, stored as its SHA-256 only. Used once: the next one replaces it. */
export class RefreshToken extends Model<InferAttributes<RefreshToken>, InferCreationAttributes<RefreshToken>> {
  declare id: string;
  declare sessionId: string;
  declare tokenHash: string;
  declare expiresAt: Date;
  declare usedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    RefreshToken.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        sessionId: { type: DataTypes.UUID, allowNull: false },
        tokenHash: { type: DataTypes.TEXT, allowNull: false },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        usedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'refresh_tokens', updatedAt: false },
    );
  }
}
