/**
 * The text state of a content stream as PDF.js keeps it (its `TextState` and `StateManager`):
 * the current transformation matrix, the font, the text and line matrices, spacing and rise,
 * saved and restored by `q`/`Q`.
 */

import type { SimpleFont } from "./fonts.ts";

export type Matrix = number[];

function transform(m1: ArrayLike<number>, m2: ArrayLike<number>): Matrix {
  return [
    m1[0] * m2[0] + m1[2] * m2[1],
    m1[1] * m2[0] + m1[3] * m2[1],
    m1[0] * m2[2] + m1[2] * m2[3],
    m1[1] * m2[2] + m1[3] * m2[3],
    m1[0] * m2[4] + m1[2] * m2[5] + m1[4],
    m1[1] * m2[4] + m1[3] * m2[5] + m1[5],
  ];
}

export class TextState {
  ctm: ArrayLike<number> = new Float32Array([1, 0, 0, 1, 0, 0]);
  fontName: string | null = null;
  fontSize = 0;
  loadedName: string | null = null;
  font: SimpleFont | null = null;
  textMatrix: Matrix = [1, 0, 0, 1, 0, 0];
  textLineMatrix: Matrix = [1, 0, 0, 1, 0, 0];
  charSpacing = 0;
  wordSpacing = 0;
  leading = 0;
  textHScale = 1;
  textRise = 0;

  translateTextMatrix(x: number, y: number): void {
    const m = this.textMatrix;
    m[4] = m[0] * x + m[2] * y + m[4];
    m[5] = m[1] * x + m[3] * y + m[5];
  }
  translateTextLineMatrix(x: number, y: number): void {
    const m = this.textLineMatrix;
    m[4] = m[0] * x + m[2] * y + m[4];
    m[5] = m[1] * x + m[3] * y + m[5];
  }
  carriageReturn(): void {
    this.translateTextLineMatrix(0, -this.leading);
    this.textMatrix = this.textLineMatrix.slice();
  }
  /**
   * A copy whose matrices are its own (the CTM is shared: it is replaced, never changed in place).
   * Built by the constructor and field by field, so every state has one shape.
   */
  clone(): TextState {
    const copy = new TextState();
    copy.ctm = this.ctm;
    copy.fontName = this.fontName;
    copy.fontSize = this.fontSize;
    copy.loadedName = this.loadedName;
    copy.font = this.font;
    copy.textMatrix = this.textMatrix.slice();
    copy.textLineMatrix = this.textLineMatrix.slice();
    copy.charSpacing = this.charSpacing;
    copy.wordSpacing = this.wordSpacing;
    copy.leading = this.leading;
    copy.textHScale = this.textHScale;
    copy.textRise = this.textRise;
    return copy;
  }
}

export class StateManager {
  stack: TextState[] = [];
  constructor(public state: TextState) {}
  save(): void {
    const old = this.state;
    this.stack.push(old);
    this.state = old.clone();
  }
  restore(): void {
    const previous = this.stack.pop();
    if (previous) this.state = previous;
  }
  transform(args: ArrayLike<number>): void {
    this.state.ctm = transform(this.state.ctm, args);
  }
}
