import { Sequelize } from 'sequelize';
import { initModels } from './models';

export function createSequelize(databaseUrl: string, opts: { poolMax?: number } = {}): Sequelize {
  const sequelize = new Sequelize(databaseUrl, {
    dialect: 'postgres',
    logging: false,
    pool: { max: opts.poolMax ?? 10, min: 0, idle: 10_000, acquire: 30_000 },
    define: { underscored: true },
  });
  initModels(sequelize);
  return sequelize;
}
