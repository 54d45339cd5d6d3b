/**
 * `ironic-render migrate -f FILE`: ironic-standalone-operator objects in, the same objects for this API out
 * (src/cli/migrate-spec.ts). Prints the migrated objects as YAML on stdout and notes on stderr; any object that
 * cannot be migrated prints its problems and nothing on stdout.
 *
 * Exit codes: 0 migrated; 1 an object cannot be migrated; 2 bad usage or unreadable input.
 */
import { parseAllDocuments, stringify } from 'yaml';
import { migrateDocuments } from './migrate-spec.js';
import { commandOptions, usageErrorText, UsageError } from './usage.js';

/** What the command reads and writes, injectable for tests. */
export type MigrateIO = {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly stdin: () => Promise<string>;
  readonly readFile: (path: string) => Promise<string>;
  /** The environment: under `npm run`, what npm kept of the options (usage errors say so). */
  readonly env?: NodeJS.ProcessEnv;
};

export const MIGRATE_USAGE = `Usage: ironic-render migrate -f FILE [-f FILE ...]

Reads Ironic and IronicDatabase objects of ironic-standalone-operator (as \`kubectl get -o yaml\` prints
them, from any release back to the design proposal's metal3.io/v1alpha1 API) and prints the same objects
for ironic.metal3.io/v1alpha1 of this project: renamed fields mapped, Secret names kept, server fields
dropped. Objects of other kinds (the Secrets of \`kubectl get ironic,secret -o yaml\`, ...) are printed
as they are, without the fields the API server wrote and owner references to the old objects. A field
without an equivalent is refused with its path, and then nothing is printed.

Options:
  -f, --filename FILE    a YAML file (several documents, or a List); - reads standard input
  -h, --help             print this help

Exit status: 0 migrated; 1 an object cannot be migrated; 2 bad usage or unreadable input.
`;

const YAML_OPTIONS = { lineWidth: 0, aliasDuplicateObjects: false, version: '1.1' } as const;

/** The options, or a UsageError. */
const parseOptions = (argv: readonly string[]): { files: string[]; help: boolean } => {
  const values = commandOptions(argv, { filename: { type: 'string', short: 'f', multiple: true }, help: { type: 'boolean', short: 'h' } });
  const files = values.filename ?? [];
  if (values.help !== true && files.length === 0) throw new UsageError('give at least one -f FILE (or -f - for standard input)');
  return { files, help: values.help === true };
};

/** The documents of every file, or the reason one cannot be read. */
const readDocuments = async (files: readonly string[], io: MigrateIO): Promise<unknown[]> => {
  const documents: unknown[] = [];
  for (const file of files) {
    const text = file === '-' ? await io.stdin() : await io.readFile(file);
    for (const document of parseAllDocuments(text)) {
      const error = document.errors[0];
      if (error !== undefined) throw new Error(`${file === '-' ? 'standard input' : file}: not valid YAML: ${error.message}`);
      documents.push(document.toJS());
    }
  }
  return documents;
};

/** The command: returns the exit status. */
export const runMigrate = async (argv: readonly string[], io: MigrateIO): Promise<number> => {
  let documents: unknown[];
  try {
    const options = parseOptions(argv);
    if (options.help) {
      io.stdout(MIGRATE_USAGE);
      return 0;
    }
    documents = await readDocuments(options.files, io);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(error instanceof UsageError ? usageErrorText({ subcommand: 'migrate', message, env: io.env ?? {} }) : `ironic-render migrate: ${message}\n`);
    return 2;
  }
  const result = migrateDocuments(documents);
  for (const note of result.notes) io.stderr(`note: ${note}\n`);
  if (result.problems.length > 0) {
    for (const problem of result.problems) io.stderr(`ironic-render migrate: ${problem}\n`);
    return 1;
  }
  if (result.migrated === 0) {
    io.stderr('ironic-render migrate: the input holds no Ironic or IronicDatabase object\n');
    return 1;
  }
  io.stdout(result.objects.map((o) => stringify(o, YAML_OPTIONS)).join('---\n'));
  return 0;
};
