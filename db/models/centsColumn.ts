import { DataTypes, type Model } from 'sequelize';

/**
 * A NOT NULL BIGINT column of cents. pg returns BIGINT as a string; the getter keeps callers on
 * plain integers (amounts stay far below 2^53).
 */
export function centsColumn(field: string) {
  return {
    type: DataTypes.BIGINT,
    allowNull: false,
    get(this: Model) {
      return Number(this.getDataValue(field));
    },
  };
}

/** A nullable BIGINT column of cents, read as a number (or null). */
export function nullableCents(field: string) {
  return {
    type: DataTypes.BIGINT,
    allowNull: true,
    get(this: Model) {
      const value = this.getDataValue(field) as string | number | null;
      return value === null || value === undefined ? null : Number(value);
    },
  };
}
