import { type Browser, chromium } from 'playwright-core';

/**
 * Debian's Chromium, headless, as the console tests drive it (playwright-core cannot download a
 * browser here). The background-networking flags keep it from dialling out on a closed network.
 * `showScrollbars`: painted as a person's browser paints them (playwright hides them when headless),
 * for tests and screenshots of what scrolls.
 */
export function launchChromium(options: { showScrollbars?: boolean } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    ...(options.showScrollbars ? { ignoreDefaultArgs: ['--hide-scrollbars'] } : {}),
  });
}
