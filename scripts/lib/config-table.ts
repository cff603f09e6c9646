// Where the README keeps its configuration table: between two HTML comments.
const START = /<!-- configuration-table:[^>]*-->\n/;
const END = '\n<!-- /configuration-table -->';

/** The table the README holds now. */
export function readmeConfigurationTable(readme: string): string {
  const start = START.exec(readme);
  const end = readme.indexOf(END);
  if (!start || end < 0) throw new Error('README.md has no configuration-table markers');
  return readme.slice(start.index + start[0].length, end);
}

/** The README with its table replaced by `table`. */
export function replaceConfigurationTable(readme: string, table: string): string {
  const current = readmeConfigurationTable(readme);
  return readme.replace(current, table);
}
