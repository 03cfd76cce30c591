import type { ChatMessage } from '../../../modules/providers/domain/chat-request';
import { anthropicRequestBody } from '../anthropic/anthropic-request';
import { geminiRequestBody } from '../google/gemini-request';

const call = (messages: ChatMessage[]) => ({ upstreamModel: 'm', request: { model: 'm', messages }, maxTokens: 100, stream: false, reasoning: false });

describe('a conversation of system and developer messages alone', () => {
  const systemOnly: ChatMessage[] = [
    { role: 'system', content: 'Write a haiku about the sea.' },
    { role: 'developer', content: [{ type: 'text', text: 'Use lower case.' }] },
  ];

  it('reaches Anthropic as one user turn of the system text, with no system prompt', () => {
    const body = anthropicRequestBody(call(systemOnly));

    expect(body.system).toBeUndefined();
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Write a haiku about the sea.\n\nUse lower case.' }] }]);
  });

  it('reaches Gemini as one user content of the system text, with no systemInstruction', () => {
    const body = geminiRequestBody(call(systemOnly));

    expect(body.systemInstruction).toBeUndefined();
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'Write a haiku about the sea.\n\nUse lower case.' }] }]);
  });

  it('counts blank turns as none, and leaves a conversation with a turn as it was', () => {
    const blankTurn: ChatMessage[] = [...systemOnly, { role: 'user', content: '  ' }];
    const spoken: ChatMessage[] = [...systemOnly, { role: 'user', content: 'Go.' }];

    expect(anthropicRequestBody(call(blankTurn)).messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Write a haiku about the sea.\n\nUse lower case.' }] }]);
    expect(anthropicRequestBody(call(spoken))).toMatchObject({ system: 'Write a haiku about the sea.\n\nUse lower case.', messages: [{ role: 'user', content: [{ type: 'text', text: 'Go.' }] }] });
    expect(geminiRequestBody(call(spoken))).toMatchObject({
      systemInstruction: { parts: [{ text: 'Write a haiku about the sea.\n\nUse lower case.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Go.' }] }],
    });
  });
});
