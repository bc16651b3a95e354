import { describe, expect, it } from 'vitest';
import { loadBoard } from '../../src/config/load-config.js';
import { BOARD_YML, makeBoard, MODELS } from '../helpers/vault.js';

describe('board.yml daily_budget and models.yml prices', () => {
  it('loads both; `prices` is no harness row', async () => {
    const root = makeBoard({}, {
      'board.yml': `${BOARD_YML}daily_budget: { tokens: 500000, usd: 5 }\n`,
      'models.yml': `${MODELS}prices:\n  fake-medium: { input: 3, output: 15 }\n`,
    });
    const board = await loadBoard({ cwd: root, env: {} });
    expect(board.config.daily_budget).toEqual({ tokens: 500000, usd: 5 });
    expect(board.prices).toEqual({ 'fake-medium': { input: 3, output: 15 } });
    expect(Object.keys(board.models)).toEqual(['fake']);
  });

  it('no daily_budget and no prices by default; a bad budget is a config error naming the field', async () => {
    const board = await loadBoard({ cwd: makeBoard({}), env: {} });
    expect(board.config.daily_budget).toBeUndefined();
    expect(board.prices).toEqual({});
    await expect(loadBoard({ cwd: makeBoard({}, { 'board.yml': `${BOARD_YML}daily_budget: { dollars: 5 }\n` }), env: {} })).rejects.toThrow(/daily_budget/);
  });
});
