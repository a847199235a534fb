/**
 * A name in PascalCase, for construct ids and alarm names made from the wings' names (a service
 * `drone-scheduler` → `DroneScheduler`, a reason code `no_drone_available` → `NoDroneAvailable`):
 * one converter, so an id made from a name is the same wherever it is made.
 */

/** The letters and digits of `name`, each word (split at anything else) starting upper case. */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}
