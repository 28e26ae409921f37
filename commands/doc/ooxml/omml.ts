/**
 * Word equations (Office Math, OMML) as LaTeX, the way markitdown and pandoc write them: `$…$`
 * for an equation inside a line, `$$…$$` for a display equation (`m:oMathPara`); docx.ts hands
 * each equation's element tree to `equationLatex`.
 */

import { isElement, type XmlElement } from "./xml.ts";

/** Characters Word writes in equations and their LaTeX commands; others are kept as they are. */
const SYMBOLS: Record<string, string> = {
  "α": "\\alpha",
  "β": "\\beta",
  "γ": "\\gamma",
  "δ": "\\delta",
  "ε": "\\varepsilon",
  "ϵ": "\\epsilon",
  "ζ": "\\zeta",
  "η": "\\eta",
  "θ": "\\theta",
  "ϑ": "\\vartheta",
  "ι": "\\iota",
  "κ": "\\kappa",
  "λ": "\\lambda",
  "μ": "\\mu",
  "ν": "\\nu",
  "ξ": "\\xi",
  "π": "\\pi",
  "ρ": "\\rho",
  "σ": "\\sigma",
  "ς": "\\varsigma",
  "τ": "\\tau",
  "υ": "\\upsilon",
  "φ": "\\varphi",
  "ϕ": "\\phi",
  "χ": "\\chi",
  "ψ": "\\psi",
  "ω": "\\omega",
  "Γ": "\\Gamma",
  "Δ": "\\Delta",
  "Θ": "\\Theta",
  "Λ": "\\Lambda",
  "Ξ": "\\Xi",
  "Π": "\\Pi",
  "Σ": "\\Sigma",
  "Υ": "\\Upsilon",
  "Φ": "\\Phi",
  "Ψ": "\\Psi",
  "Ω": "\\Omega",
  "×": "\\times",
  "÷": "\\div",
  "±": "\\pm",
  "∓": "\\mp",
  "·": "\\cdot",
  "⋅": "\\cdot",
  "∗": "\\ast",
  "≤": "\\leq",
  "≥": "\\geq",
  "≠": "\\neq",
  "≈": "\\approx",
  "≡": "\\equiv",
  "∼": "\\sim",
  "≅": "\\cong",
  "∝": "\\propto",
  "∞": "\\infty",
  "∂": "\\partial",
  "∇": "\\nabla",
  "∈": "\\in",
  "∉": "\\notin",
  "⊂": "\\subset",
  "⊆": "\\subseteq",
  "⊃": "\\supset",
  "⊇": "\\supseteq",
  "∪": "\\cup",
  "∩": "\\cap",
  "∅": "\\emptyset",
  "∀": "\\forall",
  "∃": "\\exists",
  "¬": "\\neg",
  "∧": "\\wedge",
  "∨": "\\vee",
  "→": "\\rightarrow",
  "←": "\\leftarrow",
  "↔": "\\leftrightarrow",
  "⇒": "\\Rightarrow",
  "⇐": "\\Leftarrow",
  "⇔": "\\Leftrightarrow",
  "…": "\\ldots",
  "⋯": "\\cdots",
  "°": "^{\\circ}",
  "∘": "\\circ",
  "′": "'",
  "″": "''",
  "ℏ": "\\hbar",
  "ℓ": "\\ell",
  "\u2061": "", // function application: invisible
  "\u2062": "", // invisible times
  "\u2063": "", // invisible separator
};

/** n-ary operators (`m:nary/m:naryPr/m:chr`; an integral when none is given). */
const NARY: Record<string, string> = {
  "∑": "\\sum",
  "∏": "\\prod",
  "∐": "\\coprod",
  "∫": "\\int",
  "∬": "\\iint",
  "∭": "\\iiint",
  "∮": "\\oint",
  "⋃": "\\bigcup",
  "⋂": "\\bigcap",
  "⋁": "\\bigvee",
  "⋀": "\\bigwedge",
};

/** Accents (`m:acc/m:accPr/m:chr`; a hat when none is given). */
const ACCENTS: Record<string, string> = {
  "\u0302": "\\hat",
  "\u0303": "\\tilde",
  "\u0304": "\\bar",
  "\u0305": "\\overline",
  "\u0307": "\\dot",
  "\u0308": "\\ddot",
  "\u030C": "\\check",
  "\u0306": "\\breve",
  "\u20D7": "\\vec",
  "\u2192": "\\vec",
};

/** Names that LaTeX sets upright as functions. */
const FUNCTIONS = new Set([
  "sin",
  "cos",
  "tan",
  "cot",
  "sec",
  "csc",
  "arcsin",
  "arccos",
  "arctan",
  "sinh",
  "cosh",
  "tanh",
  "coth",
  "log",
  "ln",
  "lg",
  "exp",
  "lim",
  "max",
  "min",
  "sup",
  "inf",
  "det",
  "dim",
  "gcd",
  "deg",
  "arg",
  "ker",
  "Pr",
]);

function children(element: XmlElement | undefined): XmlElement[] {
  return element ? element.children.filter(isElement) : [];
}

function first(element: XmlElement | undefined, name: string): XmlElement | undefined {
  return children(element).find((c) => c.name === name);
}

/** `m:xxxPr/m:name@m:val`: an option of an OMML object. */
function option(element: XmlElement, properties: string, name: string): string | undefined {
  return first(first(element, properties), name)?.attrs.val;
}

function runText(text: string): string {
  let out = "";
  for (const char of text) {
    const symbol = SYMBOLS[char];
    if (symbol === undefined) {
      out += /[{}%#&$_^]/.test(char) ? `\\${char}` : char === "\\" ? "\\backslash " : char;
    } else out += symbol === "" ? "" : /^\\[a-zA-Z]+$/.test(symbol) ? `${symbol} ` : symbol;
  }
  return out;
}

/** A group's LaTeX, braced when it is more than one character. */
function group(element: XmlElement | undefined): string {
  const body = latexOf(element).trim();
  return body.length === 1 ? body : `{${body}}`;
}

function argument(element: XmlElement | undefined): string {
  return `{${latexOf(element).trim()}}`;
}

function delimiter(char: string | undefined, fallback: string, side: "left" | "right"): string {
  const c = char ?? fallback;
  if (c === "") return `\\${side}.`;
  const named: Record<string, string> = { "{": "\\{", "}": "\\}", "⟨": "\\langle", "⟩": "\\rangle", "‖": "\\|" };
  return `\\${side}${named[c] ?? c}`;
}

/** The LaTeX of an OMML element's content. */
export function latexOf(element: XmlElement | undefined): string {
  let out = "";
  for (const node of element?.children ?? []) {
    if (!isElement(node)) continue;
    out += latexOfNode(node);
  }
  return out;
}

function latexOfNode(node: XmlElement): string {
  switch (node.name) {
    case "r": {
      const text = children(node).filter((c) => c.name === "t").map((t) => t.children.join("")).join("");
      const trimmed = text.replace(/\u2061/g, "");
      return FUNCTIONS.has(trimmed) ? `\\${trimmed} ` : runText(text);
    }
    case "f": {
      const type = option(node, "fPr", "type");
      const num = latexOf(first(node, "num")).trim();
      const den = latexOf(first(node, "den")).trim();
      if (type === "lin") return `${num}/${den}`;
      if (type === "noBar") return `\\genfrac{}{}{0pt}{}{${num}}{${den}}`;
      return `\\frac{${num}}{${den}}`;
    }
    case "sSup":
      return `${group(first(node, "e"))}^${argument(first(node, "sup"))}`;
    case "sSub":
      return `${group(first(node, "e"))}_${argument(first(node, "sub"))}`;
    case "sSubSup":
      return `${group(first(node, "e"))}_${argument(first(node, "sub"))}^${argument(first(node, "sup"))}`;
    case "sPre":
      return `{}_${argument(first(node, "sub"))}^${argument(first(node, "sup"))}${group(first(node, "e"))}`;
    case "rad": {
      const hidden = option(node, "radPr", "degHide");
      const degree = latexOf(first(node, "deg")).trim();
      const root = argument(first(node, "e"));
      return hidden === "1" || hidden === "on" || hidden === "true" || degree === ""
        ? `\\sqrt${root}`
        : `\\sqrt[${degree}]${root}`;
    }
    case "d": {
      const open = option(node, "dPr", "begChr");
      const close = option(node, "dPr", "endChr");
      const separator = option(node, "dPr", "sepChr") ?? "|";
      const items = children(node).filter((c) => c.name === "e").map((e) => latexOf(e).trim());
      return `${delimiter(open, "(", "left")}${items.join(runText(separator))}${delimiter(close, ")", "right")}`;
    }
    case "nary": {
      const chr = option(node, "naryPr", "chr") ?? "∫";
      const operator = NARY[chr] ?? runText(chr);
      const hide = (name: string) => ["1", "on", "true"].includes(option(node, "naryPr", name) ?? "");
      const sub = hide("subHide") ? "" : latexOf(first(node, "sub")).trim();
      const sup = hide("supHide") ? "" : latexOf(first(node, "sup")).trim();
      return `${operator}${sub ? `_{${sub}}` : ""}${sup ? `^{${sup}}` : ""}${argument(first(node, "e"))}`;
    }
    case "func": {
      const name = latexOf(first(node, "fName")).trim();
      return `${name}${name.endsWith(" ") ? "" : " "}${group(first(node, "e"))}`.replace(/\s+\{/, "{");
    }
    case "acc": {
      const chr = option(node, "accPr", "chr") ?? "\u0302";
      return `${ACCENTS[chr] ?? "\\hat"}${argument(first(node, "e"))}`;
    }
    case "bar":
      return `${option(node, "barPr", "pos") === "top" ? "\\overline" : "\\underline"}${argument(first(node, "e"))}`;
    case "limLow":
      return `${group(first(node, "e"))}_${argument(first(node, "lim"))}`;
    case "limUpp":
      return `${group(first(node, "e"))}^${argument(first(node, "lim"))}`;
    case "groupChr": {
      const top = option(node, "groupChrPr", "pos") === "top";
      return `${top ? "\\overbrace" : "\\underbrace"}${argument(first(node, "e"))}`;
    }
    case "m": {
      const rows = children(node).filter((c) => c.name === "mr").map((row) =>
        children(row).filter((c) => c.name === "e").map((e) => latexOf(e).trim()).join(" & ")
      );
      return `\\begin{matrix}${rows.join(" \\\\ ")}\\end{matrix}`;
    }
    case "eqArr": {
      const rows = children(node).filter((c) => c.name === "e").map((e) => latexOf(e).trim());
      return `\\begin{array}{l}${rows.join(" \\\\ ")}\\end{array}`;
    }
    case "oMath":
    case "e":
    case "box":
    case "borderBox":
    case "phant":
    case "num":
    case "den":
    case "sub":
    case "sup":
    case "deg":
    case "lim":
    case "fName":
      return latexOf(node);
    default:
      // Properties (xxxPr, ctrlPr) and Word run properties carry no content.
      return node.name.endsWith("Pr") ? "" : latexOf(node);
  }
}

/** An equation's LaTeX, tidied: single spaces, none before a brace or after a command's brace. */
export function equationLatex(element: XmlElement): string {
  const equations = element.name === "oMathPara" ? children(element).filter((c) => c.name === "oMath") : [element];
  return equations.map((e) => latexOf(e)).join(" \\\\ ").replace(/\s+/g, " ").replace(/ (?=[}^_)])/g, "").trim();
}
