/** A Dockerfile read into its stages and instructions (continuation lines joined, comments dropped), for checks. */
export interface DockerfileStage {
  from: string;
  name: string | undefined;
  instructions: { keyword: string; args: string }[];
}

export function dockerfileStages(text: string): DockerfileStage[] {
  const lines = text
    .replace(/\\\r?\n(\s*#.*\r?\n)*/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages: DockerfileStage[] = [];
  for (const line of lines) {
    const [, keyword, args] = /^(\w+)\s+([\s\S]*)$/.exec(line) ?? [];
    if (!keyword) continue;
    const instruction = { keyword: keyword.toUpperCase(), args: args.replace(/\s+/g, ' ').trim() };
    if (instruction.keyword === 'FROM') {
      const [from, as, name] = instruction.args.split(' ');
      stages.push({ from, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else stages[stages.length - 1]?.instructions.push(instruction);
  }
  return stages;
}
