/** What the C1 entry gate reads from a SPEC. */
export interface SpecFacts {
  scenarios: number;
  status: string | null;
  id: string | null;
}

/** Pure: scenarios are `#### Scenario` headings; `status`/`id` come from YAML-ish front matter. */
export function readSpecFacts(text: string): SpecFacts {
  const normalized = text.replace(/\r\n/g, '\n');
  const scenarios = (normalized.match(/^####\s+Scenario\b/gm) ?? []).length;
  let status: string | null = null;
  let id: string | null = null;
  const fm = /^---\n([\s\S]*?)\n---(\n|$)/.exec(normalized);
  if (fm) {
    for (const line of (fm[1] ?? '').split('\n')) {
      const m = /^(\w+)\s*:\s*(.*?)\s*$/.exec(line);
      if (!m) continue;
      const value = (m[2] ?? '').replace(/^["']|["']$/g, '');
      if (m[1] === 'status') status = value;
      if (m[1] === 'id') id = value;
    }
  }
  return { scenarios, status, id };
}

/** The C1 gate's refusal, or null when the SPEC may start a cycle. */
export function specEntryProblem(facts: SpecFacts, specRel: string): string | null {
  if (facts.scenarios === 0) return `${specRel} has no \`#### Scenario\` heading; add at least one scenario before starting a cycle`;
  if (facts.status !== null && facts.status !== 'active') {
    return `${specRel} has front-matter status "${facts.status}"; only an active SPEC can start a cycle (set status: active when it is agreed)`;
  }
  return null;
}
