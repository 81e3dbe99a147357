/** What an interrupted sync kept: whole datasources (each one commit), or entities with --commit-per-entity. */
export function interruptedSummary(
  done: readonly string[],
  current: string | undefined,
  wanted: readonly string[],
  blocked: readonly string[] = [],
  perEntity = false,
): string {
  const during = perEntity
    ? 'the entities it finished before are kept (committed per entity), the interrupted one is as it was'
    : 'its tables are as they were before this sync';
  const parts = [
    current === undefined
      ? 'sync interrupted between datasources'
      : `sync interrupted during '${current}': ${during}`,
  ];
  parts.push(
    done.length > 0 ? `kept (synced in full): ${done.map((d) => `'${d}'`).join(', ')}` : 'nothing was synced',
  );
  const rest = wanted.filter((w) => !done.includes(w) && !blocked.includes(w) && w !== current);
  if (rest.length > 0) parts.push(`not started: ${rest.map((r) => `'${r}'`).join(', ')}`);
  return parts.join('; ');
}
