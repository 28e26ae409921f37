/**
 * `git log --graph`: the lanes drawn as git's graph.c draws them (colour off). The graph is a state
 * machine fed one commit at a time, newest first in topological order; each call to `nextLine`
 * prints one row of lanes: vertical padding, the pre-commit rows that widen the lanes around an
 * octopus merge, the commit's own row (`*`), the row after a merge (`|\`), and the rows that
 * collapse lanes back to the left (`|/`, `_`). Every row of one commit is padded to the same width
 * so the text beside it stays aligned, as git pads it.
 */

/** The state of the row the graph prints next (graph.c's enum graph_state). */
type State = "padding" | "skip" | "pre_commit" | "commit" | "post_merge" | "collapsing";

export interface GraphCommit {
  readonly id: string;
  readonly parents: readonly string[];
}

const MERGE_CHARS = ["/", "|", "\\"];

export class CommitGraph {
  #commit: GraphCommit | null = null;
  #parents: string[] = [];
  #width = 0;
  #expansionRow = 0;
  #state: State = "padding";
  #prevState: State = "padding";
  #commitIndex = 0;
  #prevCommitIndex = 0;
  #mergeLayout = 0;
  #edgesAdded = 0;
  #prevEdgesAdded = 0;
  #columns: string[] = [];
  #newColumns: string[] = [];
  #mapping: number[] = [];
  #oldMapping: number[] = [];
  #mappingSize = 0;

  /** `interesting`: whether a parent is listed in this log (a range's hidden side is not). */
  constructor(private readonly interesting: (oid: string) => boolean) {}

  /** Takes the next commit to draw (graph_update). */
  update(commit: GraphCommit): void {
    this.#commit = commit;
    this.#parents = commit.parents.filter((p) => this.interesting(p));
    this.#prevCommitIndex = this.#commitIndex;
    this.#updateColumns();
    this.#expansionRow = 0;
    if (this.#state !== "padding") this.#state = "skip";
    else if (this.#needsPreCommitLine()) this.#state = "pre_commit";
    else this.#state = "commit";
  }

  /** Whether every row of the current commit has been printed. */
  get finished(): boolean {
    return this.#state === "padding";
  }

  #setState(state: State) {
    this.#prevState = this.#state;
    this.#state = state;
  }

  #findNewColumn(oid: string): number {
    return this.#newColumns.indexOf(oid);
  }

  #insertIntoNewColumns(oid: string, index: number) {
    let i = this.#findNewColumn(oid);
    if (i < 0) {
      i = this.#newColumns.length;
      this.#newColumns.push(oid);
    }
    let mappingIndex: number;
    if (this.#parents.length > 1 && index > -1 && this.#mergeLayout === -1) {
      // The first parent of a merge: the merge line leans left when that parent's lane is left of the merge.
      const dist = index - i;
      const shift = dist > 1 ? 2 * dist - 3 : 1;
      this.#mergeLayout = dist > 0 ? 0 : 1;
      this.#edgesAdded = this.#parents.length + this.#mergeLayout - 2;
      mappingIndex = this.#width + (this.#mergeLayout - 1) * shift;
      this.#width += 2 * this.#mergeLayout;
    } else if (this.#edgesAdded > 0 && i === this.#mapping[this.#width - 2]) {
      // A lane a merge added joins the last existing one at once.
      mappingIndex = this.#width - 2;
      this.#edgesAdded = -1;
    } else {
      mappingIndex = this.#width;
      this.#width += 2;
    }
    this.#mapping[mappingIndex] = i;
  }

  #updateColumns() {
    this.#columns = this.#newColumns;
    this.#newColumns = [];
    const maxNewColumns = this.#columns.length + this.#parents.length;
    this.#mappingSize = 2 * maxNewColumns;
    for (let i = 0; i < this.#mappingSize; i++) this.#mapping[i] = -1;
    this.#width = 0;
    this.#prevEdgesAdded = this.#edgesAdded;
    this.#edgesAdded = 0;
    let seenThis = false;
    const commit = this.#commit!;
    for (let i = 0; i <= this.#columns.length; i++) {
      let columnCommit: string;
      if (i === this.#columns.length) {
        if (seenThis) break;
        columnCommit = commit.id;
      } else columnCommit = this.#columns[i];
      if (columnCommit === commit.id) {
        seenThis = true;
        this.#commitIndex = i;
        this.#mergeLayout = -1;
        for (const parent of this.#parents) this.#insertIntoNewColumns(parent, i);
        // The commit takes two places even when it has no parent to draw.
        if (this.#parents.length === 0) this.#width += 2;
      } else this.#insertIntoNewColumns(columnCommit, -1);
    }
    while (this.#mappingSize > 1 && this.#mapping[this.#mappingSize - 1] < 0) this.#mappingSize--;
  }

  #dashedParents(): number {
    return this.#parents.length + this.#mergeLayout - 3;
  }

  #needsPreCommitLine(): boolean {
    return this.#parents.length >= 3 && this.#commitIndex < this.#columns.length - 1 &&
      this.#expansionRow < this.#dashedParents() * 2;
  }

  #mappingCorrect(): boolean {
    for (let i = 0; i < this.#mappingSize; i++) {
      const target = this.#mapping[i];
      if (target >= 0 && target !== Math.floor(i / 2)) return false;
    }
    return true;
  }

  #pad(line: string): string {
    return line.length < this.#width ? line + " ".repeat(this.#width - line.length) : line;
  }

  #paddingRow(): string {
    return this.#newColumns.map(() => "| ").join("");
  }

  #skipRow(): string {
    this.#setState(this.#needsPreCommitLine() ? "pre_commit" : "commit");
    return "...";
  }

  #preCommitRow(): string {
    let line = "";
    let seenThis = false;
    for (let i = 0; i < this.#columns.length; i++) {
      if (this.#columns[i] === this.#commit!.id) {
        seenThis = true;
        line += "|" + " ".repeat(this.#expansionRow);
      } else if (seenThis && this.#expansionRow === 0) {
        // Lanes right of the previous merge were drawn `\` on its last row: they go on as `\`.
        line += this.#prevState === "post_merge" && this.#prevCommitIndex < i ? "\\" : "|";
      } else if (seenThis && this.#expansionRow > 0) line += "\\";
      else line += "|";
      line += " ";
    }
    this.#expansionRow++;
    if (!this.#needsPreCommitLine()) this.#setState("commit");
    return line;
  }

  #octopusDashes(): string {
    let line = "";
    const dashed = this.#dashedParents();
    for (let i = 0; i < dashed; i++) line += "-" + (i === dashed - 1 ? "." : "-");
    return line;
  }

  #commitRow(): string {
    let line = "";
    let seenThis = false;
    const commit = this.#commit!;
    for (let i = 0; i <= this.#columns.length; i++) {
      let columnCommit: string;
      if (i === this.#columns.length) {
        if (seenThis) break;
        columnCommit = commit.id;
      } else columnCommit = this.#columns[i];
      if (columnCommit === commit.id) {
        seenThis = true;
        line += "*";
        if (this.#parents.length > 2) line += this.#octopusDashes();
      } else if (seenThis && this.#edgesAdded > 1) line += "\\";
      else if (seenThis && this.#edgesAdded === 1) {
        line += this.#prevState === "post_merge" && this.#prevEdgesAdded > 0 && this.#prevCommitIndex < i ? "\\" : "|";
      } else if (
        this.#prevState === "collapsing" && this.#oldMapping[2 * i + 1] === i && this.#mapping[2 * i] < i
      ) line += "/";
      else line += "|";
      line += " ";
    }
    if (this.#parents.length > 1) this.#setState("post_merge");
    else if (this.#mappingCorrect()) this.#setState("padding");
    else this.#setState("collapsing");
    return line;
  }

  #postMergeRow(): string {
    let line = "";
    let seenThis = false;
    const commit = this.#commit!;
    const firstParent = this.#parents[0];
    let parentColumnSeen = false;
    for (let i = 0; i <= this.#columns.length; i++) {
      let columnCommit: string;
      if (i === this.#columns.length) {
        if (seenThis) break;
        columnCommit = commit.id;
      } else columnCommit = this.#columns[i];
      if (columnCommit === commit.id) {
        seenThis = true;
        let index = this.#mergeLayout;
        for (let j = 0; j < this.#parents.length; j++) {
          line += MERGE_CHARS[index];
          if (index === 2) {
            if (this.#edgesAdded > 0 || j < this.#parents.length - 1) line += " ";
          } else index++;
        }
        if (this.#edgesAdded === 0) line += " ";
      } else if (seenThis) {
        line += (this.#edgesAdded > 0 ? "\\" : "|") + " ";
      } else {
        line += "|";
        if (this.#mergeLayout !== 0 || i !== this.#commitIndex - 1) line += parentColumnSeen ? "_" : " ";
      }
      if (columnCommit === firstParent) parentColumnSeen = true;
    }
    this.#setState(this.#mappingCorrect() ? "padding" : "collapsing");
    return line;
  }

  #collapsingRow(): string {
    let usedHorizontal = false;
    let horizontalEdge = -1;
    let horizontalEdgeTarget = -1;
    [this.#mapping, this.#oldMapping] = [this.#oldMapping, this.#mapping];
    for (let i = 0; i < this.#mappingSize; i++) this.#mapping[i] = -1;
    for (let i = 0; i < this.#mappingSize; i++) {
      const target = this.#oldMapping[i];
      if (target === undefined || target < 0) continue;
      // Lanes only ever move left, so crossing lanes never both change direction.
      if (target * 2 === i) this.#mapping[i] = target;
      else if ((this.#mapping[i - 1] ?? -1) < 0) {
        this.#mapping[i - 1] = target;
        if (horizontalEdge === -1) {
          horizontalEdge = i;
          horizontalEdgeTarget = target;
          for (let j = target * 2 + 3; j < i - 2; j += 2) this.#mapping[j] = target;
        }
      } else if (this.#mapping[i - 1] === target) {
        // Joins the lane on its left: both lead to the same parent.
      } else {
        this.#mapping[i - 2] = target;
        if (horizontalEdge === -1) {
          horizontalEdgeTarget = target;
          horizontalEdge = i - 1;
          for (let j = target * 2 + 3; j < i - 2; j += 2) this.#mapping[j] = target;
        }
      }
    }
    for (let i = 0; i < this.#mappingSize; i++) this.#oldMapping[i] = this.#mapping[i];
    if (this.#mapping[this.#mappingSize - 1] < 0) this.#mappingSize--;
    let line = "";
    for (let i = 0; i < this.#mappingSize; i++) {
      const target = this.#mapping[i];
      if (target < 0) line += " ";
      else if (target * 2 === i) line += "|";
      else if (target === horizontalEdgeTarget && i !== horizontalEdge - 1) {
        // Only the first segment of a horizontal edge goes on to the next row.
        if (i !== target * 2 + 3) this.#mapping[i] = -1;
        usedHorizontal = true;
        line += "_";
      } else {
        if (usedHorizontal && i < horizontalEdge) this.#mapping[i] = -1;
        line += "/";
      }
    }
    if (this.#mappingCorrect()) this.#setState("padding");
    return line;
  }

  /** The next row (graph_next_line); `commit` is true for the row of the commit itself. */
  nextLine(): { text: string; commit: boolean } {
    let text: string;
    let commit = false;
    switch (this.#state) {
      case "padding":
        text = this.#paddingRow();
        break;
      case "skip":
        text = this.#skipRow();
        break;
      case "pre_commit":
        text = this.#preCommitRow();
        break;
      case "commit":
        text = this.#commitRow();
        commit = true;
        break;
      case "post_merge":
        text = this.#postMergeRow();
        break;
      case "collapsing":
        text = this.#collapsingRow();
        break;
    }
    return { text: this.#pad(text), commit };
  }

  /** A row that never shows the commit (graph_padding_line): the lanes carried down. */
  paddingLine(): string {
    if (this.#state !== "commit") return this.nextLine().text;
    let line = "";
    for (const column of this.#columns) {
      line += "|";
      line += column === this.#commit!.id && this.#parents.length > 2
        ? " ".repeat((this.#parents.length - 2) * 2)
        : " ";
    }
    this.#prevState = "padding";
    return this.#pad(line);
  }

  /** The rows up to and including the commit's own, the last without its newline (graph_show_commit). */
  showCommit(): string {
    if (this.finished) return this.paddingLine();
    let out = "";
    for (;;) {
      const { text, commit } = this.nextLine();
      out += text;
      if (commit || this.finished) return out;
      out += "\n";
    }
  }

  /** The commit's remaining rows, newline-separated, the last without its newline (graph_show_remainder). */
  remainder(): string {
    if (this.finished) return "";
    let out = "";
    for (;;) {
      out += this.nextLine().text;
      if (this.finished) return out;
      out += "\n";
    }
  }

  /**
   * A commit's text beside the graph (graph_show_commit_msg): each line after the first gets the
   * next row; then the rows the commit still needs, keeping the text's final newline last.
   */
  showMessage(text: string): string {
    let out = "";
    let at = 0;
    while (at < text.length) {
      const newline = text.indexOf("\n", at);
      const end = newline < 0 ? text.length : newline + 1;
      out += text.slice(at, end);
      if (newline >= 0 && end < text.length) out += this.nextLine().text;
      at = end;
    }
    if (!this.finished) {
      const terminated = text.endsWith("\n");
      if (!terminated) out += "\n";
      out += this.remainder();
      if (terminated) out += "\n";
    }
    return out;
  }
}

/**
 * git's topological order for a graph (sort_in_topological_order in graph order): the commits as
 * the date-ordered walk listed them; a commit comes out once all its children have, the tips in
 * the walk's order, and among commits ready together the one made ready last first.
 */
export function topoOrder<T extends GraphCommit>(commits: readonly T[]): T[] {
  const indegree = new Map<string, number>();
  for (const c of commits) indegree.set(c.id, 1);
  for (const c of commits) {
    for (const p of c.parents) {
      const n = indegree.get(p);
      if (n) indegree.set(p, n + 1);
    }
  }
  const byId = new Map(commits.map((c) => [c.id, c]));
  const stack = commits.filter((c) => indegree.get(c.id) === 1).reverse();
  const out: T[] = [];
  while (stack.length) {
    const commit = stack.pop()!;
    for (const p of commit.parents) {
      const n = indegree.get(p);
      if (!n) continue;
      indegree.set(p, n - 1);
      if (n - 1 === 1) stack.push(byId.get(p)!);
    }
    indegree.set(commit.id, 0);
    out.push(commit);
  }
  return out;
}
