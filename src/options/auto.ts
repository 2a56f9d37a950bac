// 'auto' on a choice (CLI flag or demo control): fitPlan searches the option's values in the order the
// schema lists them (schema.ts: values are in order of preference: exact and small-memory-cost first),
// so the CLI, the demo and any later surface search the same way. A value set explicitly is tried alone.
import { OPTIONS, type OptionOrAuto, type OptionValue } from './schema';

type AutoKey = { [K in keyof typeof OPTIONS]: (typeof OPTIONS)[K] extends { auto: true } ? K : never }[keyof typeof OPTIONS];

/** The values fitPlan may pick for `key` set to `v`: every value for 'auto' (in preference order), else `v`. */
export function tried<K extends AutoKey>(key: K, v: OptionOrAuto<K>): OptionValue<K>[] {
  return (v === 'auto' ? [...OPTIONS[key].values] : [v]) as OptionValue<K>[];
}
