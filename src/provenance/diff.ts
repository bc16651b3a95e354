import type { Component, RunManifest } from './manifest.js';
import type { ObjectStore } from './store.js';
import { unifiedDiff } from './text-diff.js';

/**
 * Two runs compared component by component (profile, each skill, card, harness, prompt): which
 * are the same, changed, added or gone, with a text diff of each changed one. The request's
 * scalar parts (harness, model, argv, cwd) are compared too.
 */

export type ComponentStatus = 'same' | 'changed' | 'added' | 'gone';

export interface ComponentDiff {
  readonly name: string;
  readonly status: ComponentStatus;
  readonly a?: string | undefined;
  readonly b?: string | undefined;
  /** Unified diff of a changed component (missing components have none). */
  readonly diff?: string;
}

export interface RunDiff {
  readonly a: string;
  readonly b: string;
  readonly components: ComponentDiff[];
  readonly fields: { readonly name: string; readonly a: string; readonly b: string }[];
}

const identity = (c: Component | undefined) => (c === undefined ? undefined : (c.hash ?? `missing: ${c.missing ?? '?'}`));

export async function diffRuns(store: ObjectStore, a: RunManifest, b: RunManifest, withText = true): Promise<RunDiff> {
  const byName = (m: RunManifest) => new Map(m.components.map((c) => [c.name, c]));
  const left = byName(a);
  const right = byName(b);
  const names = [...left.keys(), ...[...right.keys()].filter((n) => !left.has(n))];
  const components: ComponentDiff[] = [];
  for (const name of names) {
    const ca = left.get(name);
    const cb = right.get(name);
    const ia = identity(ca);
    const ib = identity(cb);
    if (ca === undefined) components.push({ name, status: 'added', b: ib });
    else if (cb === undefined) components.push({ name, status: 'gone', a: ia });
    else if (ia === ib) components.push({ name, status: 'same', a: ia, b: ib });
    else {
      let diff: string | undefined;
      if (withText && ca.hash && cb.hash) diff = unifiedDiff(await store.getText(ca.hash), await store.getText(cb.hash));
      components.push({ name, status: 'changed', a: ia, b: ib, ...(diff !== undefined ? { diff } : {}) });
    }
  }
  const fields: RunDiff['fields'] = [];
  const field = (name: string, va: string, vb: string) => void (va !== vb && fields.push({ name, a: va, b: vb }));
  field('harness', a.harness, b.harness);
  field('model', a.model, b.model);
  field('argv', JSON.stringify(a.argv), JSON.stringify(b.argv));
  field('cwd', a.cwd, b.cwd);
  return { a: a.run, b: b.run, components, fields };
}

export function renderRunDiff(d: RunDiff): string {
  const lines = [`diff ${d.a} → ${d.b}`];
  const short = (h?: string) => (h === undefined ? '' : h.startsWith('missing') ? h : h.slice(0, 12));
  for (const c of d.components) {
    const ids = c.status === 'same' ? short(c.a) : c.status === 'changed' ? `${short(c.a)} → ${short(c.b)}` : c.status === 'added' ? short(c.b) : short(c.a);
    lines.push(`  ${c.status.padEnd(8)} ${c.name.padEnd(24)} ${ids}`);
  }
  const cut = (v: string) => (v.length > 100 ? `${v.slice(0, 100)}… (${v.length} chars)` : v);
  for (const f of d.fields) lines.push(`  ${'changed'.padEnd(8)} ${f.name.padEnd(24)} ${cut(f.a)} → ${cut(f.b)}`);
  for (const c of d.components) {
    if (c.status !== 'changed' || !c.diff) continue;
    lines.push('', `--- ${c.name} (${d.a})`, `+++ ${c.name} (${d.b})`, c.diff.trimEnd());
  }
  return `${lines.join('\n')}\n`;
}
