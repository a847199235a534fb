/** Spin or the C compiler its verifiers are built with is not on the machine: says how to get them. */
export class SpinUnavailableError extends Error {
  constructor(tool: string, cause: string) {
    super(
      `${tool} is needed to verify the protocol models and could not be run (${cause}). ` +
        "Install it from Debian's packages: apt-get install spin gcc (.ci/run does).",
    );
    this.name = 'SpinUnavailableError';
  }
}
