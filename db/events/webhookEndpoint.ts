import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

export class WebhookEndpoint extends Model<InferAttributes<WebhookEndpoint>, InferCreationAttributes<WebhookEndpoint>> {
  declare id: string;
  declare merchantId: string;
  declare chargeId: string | null;
  declare url: string;
  declare events: string[];
  declare description: string | null;
  /** Encrypted; decrypt with core/crypto/secretBox. Never log. */
  declare secretCiphertext: string;
  declare previousSecretCiphertext: string | null;
  declare previousSecretExpiresAt: Date | null;
  /** The last secret rotation's id (its idempotency claim's resource id): a resumed rotation answers it. */
  declare rotationId: CreationOptional<string | null>;
  declare active: CreationOptional<boolean>;
  declare disabledAt: Date | null;
  declare disabledReason: string | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    WebhookEndpoint.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        merchantId: { type: DataTypes.UUID, allowNull: false },
        chargeId: DataTypes.UUID,
        url: { type: DataTypes.TEXT, allowNull: false },
        events: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false },
        description: DataTypes.TEXT,
        secretCiphertext: { type: DataTypes.TEXT, allowNull: false },
        previousSecretCiphertext: DataTypes.TEXT,
        previousSecretExpiresAt: DataTypes.DATE,
        rotationId: DataTypes.UUID,
        active: { type: DataTypes.BOOLEAN, defaultValue: true },
        disabledAt: DataTypes.DATE,
        disabledReason: DataTypes.TEXT,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'webhook_endpoints' },
    );
  }
}
