import { assistantMessage, audio, embeddedResource, image, resourceLink, text, toolError, userMessage } from '../src';
import { isContentBlock } from '../src/exports/protocol';
import { toCallToolResult, toGetPromptResult, toReadResourceResult } from '../src/transport';

const annotations = { audience: ['user' as const], priority: 0.9, lastModified: '2025-06-01T12:00:00Z' };

describe('content helpers', () => {
  it('text', () => {
    expect(text('hello')).toEqual({ type: 'text', text: 'hello' });
    expect(text('')).toEqual({ type: 'text', text: '' });
    expect(text('hi', annotations)).toEqual({ type: 'text', text: 'hi', annotations });
  });

  it('image encodes bytes as base64 and keeps a base64 string as is', () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00]);
    expect(image(bytes, 'image/png')).toEqual({ type: 'image', data: 'iVBOR/8A', mimeType: 'image/png' });
    expect(image('iVBOR/8A', 'image/png')).toEqual({ type: 'image', data: 'iVBOR/8A', mimeType: 'image/png' });
    expect(image(bytes, 'image/png', annotations).annotations).toEqual(annotations);
  });

  it('audio encodes a Buffer (from the shared pool) and a Uint8Array view by their own bytes only', () => {
    const pooled = Buffer.from('RIFF-wave');
    expect(pooled.byteOffset === 0 && pooled.buffer.byteLength === pooled.length).toBe(false);
    expect(audio(pooled, 'audio/wav')).toEqual({ type: 'audio', data: Buffer.from('RIFF-wave').toString('base64'), mimeType: 'audio/wav' });
    const view = new Uint8Array([1, 2, 3, 4, 5]).subarray(1, 3);
    expect(audio(view, 'audio/ogg').data).toBe(Buffer.from([2, 3]).toString('base64'));
    expect(Buffer.from(audio(pooled, 'audio/wav').data, 'base64').toString()).toBe('RIFF-wave');
  });

  it('embeddedResource holds text for a string and a blob for bytes', () => {
    expect(embeddedResource('mem://doc', 'the text')).toEqual({ type: 'resource', resource: { uri: 'mem://doc', text: 'the text' } });
    expect(embeddedResource('mem://doc', 'the text', { mimeType: 'text/markdown', annotations })).toEqual({
      type: 'resource',
      resource: { uri: 'mem://doc', mimeType: 'text/markdown', text: 'the text' },
      annotations,
    });
    expect(embeddedResource('mem://bin', Buffer.from([0, 1, 2]), { mimeType: 'application/octet-stream' })).toEqual({
      type: 'resource',
      resource: { uri: 'mem://bin', mimeType: 'application/octet-stream', blob: 'AAEC' },
    });
  });

  it('resourceLink carries every resource field', () => {
    expect(resourceLink({ uri: 'mem://a', name: 'a' })).toEqual({ type: 'resource_link', uri: 'mem://a', name: 'a' });
    const full = {
      uri: 'mem://b',
      name: 'b',
      title: 'B',
      description: 'the b',
      mimeType: 'text/plain',
      size: 3,
      icons: [{ src: 'https://example.com/b.png' }],
      annotations,
      _meta: { x: 1 },
    };
    expect(resourceLink(full)).toEqual({ type: 'resource_link', ...full });
  });

  it('toolError builds an isError result from a message or blocks', () => {
    expect(toolError('it broke')).toEqual({ content: [{ type: 'text', text: 'it broke' }], isError: true });
    const blocks = [text('a'), image('AA==', 'image/png')];
    expect(toolError(blocks)).toEqual({ content: blocks, isError: true });
  });

  it('userMessage and assistantMessage', () => {
    expect(userMessage('hi')).toEqual({ role: 'user', content: { type: 'text', text: 'hi' } });
    const block = image('AA==', 'image/png');
    expect(userMessage(block)).toEqual({ role: 'user', content: block });
    expect(assistantMessage('ok')).toEqual({ role: 'assistant', content: { type: 'text', text: 'ok' } });
  });

  it('isContentBlock recognises the five block types only', () => {
    for (const block of [text('a'), image('AA==', 'image/png'), audio('AA==', 'audio/wav'), embeddedResource('x:y', 'z'), resourceLink({ uri: 'x:y', name: 'y' })]) {
      expect(isContentBlock(block)).toBe(true);
    }
    for (const value of [null, undefined, 'text', { type: 'video' }, { text: 'no type' }, [text('a')]]) {
      expect(isContentBlock(value)).toBe(false);
    }
  });
});

describe('normalisers', () => {
  it('toCallToolResult', () => {
    expect(toCallToolResult('s')).toEqual({ content: [{ type: 'text', text: 's' }] });
    expect(toCallToolResult(undefined)).toEqual({ content: [] });
    expect(toCallToolResult(null)).toEqual({ content: [] });
    expect(toCallToolResult(text('t'))).toEqual({ content: [text('t')] });
    expect(toCallToolResult(['a', text('b'), { k: 1 }])).toEqual({ content: [text('a'), text('b'), text('{"k":1}')] });
    const full = { content: [text('x')], isError: true, structuredContent: { a: 1 } };
    expect(toCallToolResult(full)).toBe(full);
    expect(toCallToolResult({ a: [1, 2] })).toEqual({ content: [text('{"a":[1,2]}')] });
    expect(toCallToolResult(false)).toEqual({ content: [text('false')] });
  });

  it('toReadResourceResult', () => {
    expect(toReadResourceResult('t', 'mem://a', 'text/plain')).toEqual({ contents: [{ uri: 'mem://a', mimeType: 'text/plain', text: 't' }] });
    expect(toReadResourceResult(Buffer.from('hi'), 'mem://a')).toEqual({ contents: [{ uri: 'mem://a', blob: 'aGk=' }] });
    expect(toReadResourceResult([{ text: 'one' }, { uri: 'mem://other', blob: 'AA==' }], 'mem://a')).toEqual({
      contents: [
        { uri: 'mem://a', text: 'one' },
        { uri: 'mem://other', blob: 'AA==' },
      ],
    });
    expect(toReadResourceResult([1, 2], 'mem://a')).toEqual({
      contents: [
        { uri: 'mem://a', mimeType: 'application/json', text: '1' },
        { uri: 'mem://a', mimeType: 'application/json', text: '2' },
      ],
    });
  });

  it('toGetPromptResult', () => {
    expect(toGetPromptResult('q', 'd')).toEqual({ description: 'd', messages: [userMessage('q')] });
    expect(toGetPromptResult(['a', assistantMessage('b'), { role: 'assistant', content: 'c' }])).toEqual({
      messages: [userMessage('a'), assistantMessage('b'), assistantMessage('c')],
    });
    expect(toGetPromptResult({ messages: ['x'], description: 'own' }, 'listed')).toEqual({ description: 'own', messages: [userMessage('x')] });
    expect(toGetPromptResult(image('AA==', 'image/png'))).toEqual({ messages: [{ role: 'user', content: image('AA==', 'image/png') }] });
  });
});
