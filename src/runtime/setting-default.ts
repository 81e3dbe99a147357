/** A parameter value that reads `settings.custom.<name>` of solution.yaml, as written in real files. */
const CUSTOM_SETTING = /^=\s*@(?:ctx)?\.solution\.settings\.custom\.([A-Za-z_$][\w$]*)\s*$/;

/**
 * The `settings.custom` key a parameter's value reads when it is nothing but that read
 * (`=@ctx.solution.settings.custom.apiBase`, the docs' way to keep a base address in one place);
 * undefined for any other value. What it gives is known without running anything: solution.yaml's
 * setting, the same for every caller.
 */
export function customSettingRead(value: unknown): string | undefined {
  return typeof value === 'string' ? CUSTOM_SETTING.exec(value)?.[1] : undefined;
}
