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
 * `@ctx.system` at `now`, over the caller's own fields (`settings`, kept as given): the zone's
 * offset is that instant's (summer time included), written as JSONata's `$fromMillis` takes it
 * (`+0100`). A zone or locale that is not a valid name is not used: the process's stands (an app's
 * report of its zone must not fail the execution).
 *
 * `timezone` is worked out when first read (then kept, as of the context's instant): finding the
 * process's zone and its offset loads ICU's time zone data, a tenth of a `restfn run` of a function
 * that never reads `@ctx.system.timezone` (issue 41, start-up). Read, copied or serialised, the
 * object is the plain data it was.
 */
export function systemContext(
  settings: SystemSettings & Record<string, unknown>,
  fallback: SystemSettings,
  clock: Clock,
): SystemContext & Record<string, unknown> {
  const now = clock.now();
  let timezone: SystemContext['timezone'] | undefined;
  const system: Record<string, unknown> = { ...settings };
  Object.defineProperty(system, 'timezone', {
    get() {
      if (timezone === undefined) {
        const name = validZone(settings.timezone) ?? validZone(fallback.timezone) ?? processZone();
        timezone = { name, offset: zoneOffset(name, now) };
      }
      return timezone;
    },
    enumerable: true,
    configurable: true,
  });
  return Object.assign(system, {
    locale: validLocale(settings.locale) ?? validLocale(fallback.locale) ?? 'en',
    isOffline: false,
    isOnline: true,
  }) as SystemContext & Record<string, unknown>;
}

/**
 * `Intl.DateTimeFormat` is costly to make (tens of microseconds each) and every execution makes a
 * context: names are checked once and formatters kept, in maps bounded because a caller of the
 * platform chooses the names it sends (past the bound a name is checked again, not kept).
 */
const MAX_KEPT = 256;

function kept<V>(map: Map<string, V>, key: string, make: () => V): V {
  let value = map.get(key);
  if (value === undefined && !map.has(key)) {
    value = make();
    if (map.size < MAX_KEPT) map.set(key, value);
  }
  return value as V;
}

let zoneOfProcess: string | undefined;

/** The time zone the process runs in (TZ, else the system's), read once. */
export function processZone(): string {
  zoneOfProcess ??= Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  return zoneOfProcess;
}

const zones = new Map<string, string | undefined>();

function validZone(name: unknown): string | undefined {
  if (typeof name !== 'string' || name === '') return undefined;
  return kept(zones, name, () => {
    try {
      return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
    } catch {
      return undefined;
    }
  });
}

const locales = new Map<string, string | undefined>();

function validLocale(locale: unknown): string | undefined {
  if (typeof locale !== 'string' || locale === '') return undefined;
  return kept(locales, locale, () => {
    try {
      return Intl.getCanonicalLocales(locale.replace(/_/g, '-'))[0];
    } catch {
      return undefined;
    }
  });
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();
/** Per zone, the offset of the last minute asked for: offsets change on whole minutes at most. */
const lastOffsets = new Map<string, { minute: number; offset: string }>();

/** `+HHMM` / `-HHMM` of `zone` at `at` (ms). */
export function zoneOffset(zone: string, at: number): string {
  const minute = Math.floor(at / 60_000);
  const last = lastOffsets.get(zone);
  if (last?.minute === minute) return last.offset;
  const format = kept(
    offsetFormats,
    zone,
    () => new Intl.DateTimeFormat('en', { timeZone: zone, timeZoneName: 'longOffset' }),
  );
  const part = format.formatToParts(at).find((p) => p.type === 'timeZoneName')?.value;
  // `GMT+05:30`, `GMT-03:00`, or `GMT` alone for an offset of zero.
  const match = /([+-])(\d{2}):?(\d{2})?/.exec(part ?? '');
  const offset = match ? `${match[1]}${match[2]}${match[3] ?? '00'}` : '+0000';
  if (lastOffsets.size < MAX_KEPT || lastOffsets.has(zone)) lastOffsets.set(zone, { minute, offset });
  return offset;
}
