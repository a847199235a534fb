/** The one PascalCase converter of construct ids and alarm names. */
import { pascalCase } from '../../../lambdas/shared/pascal-case';

describe('pascalCase', () => {
  it.each([
    ['drone-scheduler', 'DroneScheduler'],
    ['ingestion', 'Ingestion'],
    ['no_drone_available', 'NoDroneAvailable'],
    ['already Pascal', 'AlreadyPascal'],
  ])('%s → %s', (name, expected) => {
    expect(pascalCase(name)).toBe(expected);
  });
});
