import { describe, expect, it } from 'vitest';
import { contentAfter } from '../../src/gate/rules/contentAfter.js';

describe('contentAfter: the file as the write leaves it', () => {
  it('Write replaces the file', () => {
    expect(contentAfter({ tool: 'Write', content: 'new' }, 'old STUB:TDD')).toBe('new');
  });

  it('Edit replaces the first occurrence and keeps the rest of the file', () => {
    const after = contentAfter({ tool: 'Edit', edits: [{ old_string: 'a', new_string: 'b' }] }, '// STUB:TDD\na a');
    expect(after).toBe('// STUB:TDD\nb a');
  });

  it('Edit with replace_all replaces every occurrence', () => {
    expect(contentAfter({ tool: 'Edit', edits: [{ old_string: 'a', new_string: 'b', replace_all: true }] }, 'a a')).toBe('b b');
  });

  it('an Edit that removes the marker is seen', () => {
    const after = contentAfter({ tool: 'Edit', edits: [{ old_string: '// STUB:TDD\n', new_string: '' }] }, '// STUB:TDD\nx');
    expect(after).not.toContain('STUB:TDD');
  });

  it('MultiEdit applies the edits in order', () => {
    const after = contentAfter(
      { tool: 'Edit', edits: [{ old_string: 'one', new_string: 'two' }, { old_string: 'two', new_string: 'three' }] },
      'one',
    );
    expect(after).toBe('three');
  });

  it('an Edit of a missing file starts from empty', () => {
    expect(contentAfter({ tool: 'Edit', edits: [{ old_string: '', new_string: 'x' }] }, null)).toBe('x');
  });

  it('NotebookEdit replaces the cell and keeps the others', () => {
    const nb = JSON.stringify({ cells: [{ id: 'c1', source: ['# STUB:TDD\n'] }, { id: 'c2', source: 'x = 1' }] });
    expect(contentAfter({ tool: 'NotebookEdit', cell_id: 'c2', new_source: 'y = 2' }, nb)).toContain('STUB:TDD');
    expect(contentAfter({ tool: 'NotebookEdit', cell_id: 'c1', new_source: 'y = 2' }, nb)).not.toContain('STUB:TDD');
    expect(contentAfter({ tool: 'NotebookEdit', cell_id: 'c1', edit_mode: 'delete' }, nb)).not.toContain('STUB:TDD');
    expect(contentAfter({ tool: 'NotebookEdit', cell_id: 'c1', edit_mode: 'insert', new_source: 'z' }, nb)).toContain('STUB:TDD');
  });
});
