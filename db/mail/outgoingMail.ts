import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

export type OutgoingMailStatus = 'QUEUED' | 'SENT' | 'FAILED';

export class OutgoingMail extends Model<InferAttributes<OutgoingMail>, InferCreationAttributes<OutgoingMail>> {
  declare id: string;
  declare toAddress: string;
  declare subject: string;
  /** Encrypted (core/crypto/secretBox); null once sent or given up. Carries one-time codes: never log. */
  declare bodyCiphertext: string | null;
  declare status: CreationOptional<OutgoingMailStatus>;
  declare attempts: CreationOptional<number>;
  /** Our own words (e.g. `SMTP_UNREACHABLE: ...`), never the SMTP server's answer or URL. */
  declare lastError: CreationOptional<string | null>;
  declare sentAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    OutgoingMail.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        toAddress: { type: DataTypes.TEXT, allowNull: false },
        subject: { type: DataTypes.TEXT, allowNull: false },
        bodyCiphertext: DataTypes.TEXT,
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'QUEUED' },
        attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        lastError: DataTypes.TEXT,
        sentAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'outgoing_mails' },
    );
  }
}
