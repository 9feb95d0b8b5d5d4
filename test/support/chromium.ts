/**
 * Debian's chromium for the browser tests, driven by playwright-core (no browser is
 * downloaded; `.ci/run` installs the package). Without it the browser tests are skipped
 * with a message — except with CI=true, where a missing browser fails the run.
 */
import { existsSync } from 'node:fs';

/** The browser binary (`WEFT_TEST_CHROMIUM` overrides). */
export const CHROMIUM = process.env.WEFT_TEST_CHROMIUM ?? '/usr/bin/chromium';

/** Whether it is installed; throws under CI when it is not. */
export const haveChromium: boolean = existsSync(CHROMIUM);
if (!haveChromium) {
  if (process.env.CI === 'true') {
    throw new Error(`CI: ${CHROMIUM} is missing; .ci/run installs Debian's chromium`);
  }
  console.warn(`weft: ${CHROMIUM} not found; the browser tests are skipped`);
}
