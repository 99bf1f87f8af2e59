import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

/** A user's second factors. The TOTP seed is encrypted (core/crypto/secretBox); never logged. */
export class SecondFactor extends Model<InferAttributes<SecondFactor>, InferCreationAttributes<SecondFactor>> {
  declare userId: string;
  declare totpSecretCiphertext: CreationOptional<string | null>;
  declare totpEnabledAt: CreationOptional<Date | null>;
  /** A seed shown by setup, active only once a first code confirms it. */
  declare totpPendingCiphertext: CreationOptional<string | null>;
  /** The last TOTP time step accepted: a code is never accepted twice. */
  declare totpLastStep: CreationOptional<string | null>;
  declare emailEnabledAt: CreationOptional<Date | null>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    SecondFactor.init(
      {
        userId: { type: DataTypes.UUID, primaryKey: true },
        totpSecretCiphertext: DataTypes.TEXT,
        totpEnabledAt: DataTypes.DATE,
        totpPendingCiphertext: DataTypes.TEXT,
        totpLastStep: DataTypes.BIGINT,
        emailEnabledAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'user_second_factors', createdAt: false },
    );
  }
}

export class RecoveryCode extends Model<InferAttributes<RecoveryCode>, InferCreationAttributes<RecoveryCode>> {
  declare id: string;
  declare userId: string;
  declare codeHash: string;
  declare usedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    RecoveryCode.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        userId: { type: DataTypes.UUID, allowNull: false },
        codeHash: { type: DataTypes.TEXT, allowNull: false },
        usedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'recovery_codes', updatedAt: false },
    );
  }
}

export type ChallengePurpose = 'LOGIN' | 'EMAIL_SETUP' | 'ACTION';

/** A step awaiting a code: the second step of a login, an e-mail factor setup, or a sensitive action. */
export class AuthChallenge extends Model<InferAttributes<AuthChallenge>, InferCreationAttributes<AuthChallenge>> {
  declare id: string;
  declare userId: string;
  declare purpose: ChallengePurpose;
  declare action: string | null;
  /** SHA-256 of the challenge token the client holds (login challenges). */
  declare tokenHash: string | null;
  declare emailCodeHash: CreationOptional<string | null>;
  declare emailCodeExpiresAt: CreationOptional<Date | null>;
  declare attempts: CreationOptional<number>;
  declare expiresAt: Date;
  declare completedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    AuthChallenge.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        userId: { type: DataTypes.UUID, allowNull: false },
        purpose: { type: DataTypes.TEXT, allowNull: false },
        action: DataTypes.TEXT,
        tokenHash: DataTypes.TEXT,
        emailCodeHash: DataTypes.TEXT,
        emailCodeExpiresAt: DataTypes.DATE,
        attempts: { type: DataTypes.INTEGER, defaultValue: 0 },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        completedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'auth_challenges', updatedAt: false },
    );
  }
}

/** Proof of a passed second factor for one named action; single use, minutes long. */
export class ActionToken extends Model<InferAttributes<ActionToken>, InferCreationAttributes<ActionToken>> {
  declare id: string;
  declare userId: string;
  declare action: string;
  declare tokenHash: string;
  declare expiresAt: Date;
  declare usedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    ActionToken.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        userId: { type: DataTypes.UUID, allowNull: false },
        action: { type: DataTypes.TEXT, allowNull: false },
        tokenHash: { type: DataTypes.TEXT, allowNull: false },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        usedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'action_tokens', updatedAt: false },
    );
  }
}
