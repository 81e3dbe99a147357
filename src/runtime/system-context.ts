import type { Clock } from '../errors/clock.js';

/** `@ctx.system` (conventions.md "Context"): the device's (or the platform's) time zone and locale. */
export interface SystemContext {
  readonly timezone: { readonly name: string; readonly offset: string };
  readonly locale: string;
  readonly isOffline: boolean;
  readonly isOnline: boolean;
}

/** What sets `@ctx.system`: a zone name and a locale; unset fields are the process's. */
export interface SystemSettings {
  /** An IANA time zone name (`Europe/Paris`). */
  readonly timezone?: string | undefined;
  /** A BCP 47 locale (`de-CH`); `de_CH` is read as `de-CH`. */
  readonly locale?: string | undefined;
}

/**
 * `@ctx.system` at `now`: the zone's offset is that instant's (summer time included), written as
 * JSONata's `$fromMillis` takes it (`+0100`). A zone or locale that is not a valid name is not
 * used: the process's stands (an app's report of its zone must not fail the execution).
 */
export function systemContext(
  settings: SystemSettings,
  fallback: SystemSettings,
  clock: Clock,
): SystemContext {
  const name = validZone(settings.timezone) ?? validZone(fallback.timezone) ?? processZone();
  return {
    timezone: { name, offset: zoneOffset(name, clock.now()) },
    locale: validLocale(settings.locale) ?? validLocale(fallback.locale) ?? 'en',
    isOffline: false,
    isOnline: true,
  };
}

/** The time zone the process runs in (TZ, else the system's). */
export function processZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

function validZone(name: unknown): string | undefined {
  if (typeof name !== 'string' || name === '') return undefined;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

function validLocale(locale: unknown): string | undefined {
  if (typeof locale !== 'string' || locale === '') return undefined;
  try {
    return Intl.getCanonicalLocales(locale.replace(/_/g, '-'))[0];
  } catch {
    return undefined;
  }
}

/** `+HHMM` / `-HHMM` of `zone` at `at` (ms). */
export function zoneOffset(zone: string, at: number): string {
  const part = new Intl.DateTimeFormat('en', { timeZone: zone, timeZoneName: 'longOffset' })
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')?.value;
  // `GMT+05:30`, `GMT-03:00`, or `GMT` alone for an offset of zero.
  const match = /([+-])(\d{2}):?(\d{2})?/.exec(part ?? '');
  return match ? `${match[1]}${match[2]}${match[3] ?? '00'}` : '+0000';
}
