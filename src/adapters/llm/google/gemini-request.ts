import type { Content, FunctionCallingConfigMode, FunctionDeclaration, GenerationConfig, Part, Tool } from '@google/genai';
import { messageText, type ChatMessage, type ChatRequest, type ContentPart, type ResponseFormat, type ToolCall } from '../../../modules/providers/domain/chat-request';
import type { UpstreamCall } from '../../../modules/providers/ports/llm-provider';
import { alternatingTurns, type Turn } from '../shared/alternating-turns';
import { parseDataUrl } from '../shared/data-url';
import { isJsonObject, parseJsonObject } from '../shared/json-object';
import { contentParts, isSystemMessage } from '../shared/message-parts';
import { spokenConversation } from '../shared/system-only-conversation';
import { thinkingConfig } from './gemini-parameters';
import { imageMimeType } from './image-mime-type';

/**
 * The REST body of generateContent. The SDK's GenerateContentParameters is its own call shape
 * (settings under `config`), and its enums cannot be built from a type-only import, hence the
 * mode spelled as the enum's strings.
 */
export interface GenerateContentRequest {
  contents: Content[];
  systemInstruction?: Content;
  tools?: Tool[];
  toolConfig?: { functionCallingConfig: { mode: `${FunctionCallingConfigMode}`; allowedFunctionNames?: string[] } };
  generationConfig: GenerationConfig;
}

/**
 * The OpenAI history has nowhere to keep Gemini's thought signatures, and Gemini 3 refuses a
 * replayed function call without one: Google documents this value as the way to skip the check.
 */
const NO_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

const TOOL_MODES = { auto: 'AUTO', required: 'ANY', none: 'NONE' } as const;

/** The generateContent body for a chat request, with the settings gemini-parameters.ts says it takes. */
export function geminiRequestBody(call: UpstreamCall): GenerateContentRequest {
  const { request } = call;
  const { system, turns } = spokenConversation(request.messages, contents(request.messages), (text) => ({ role: 'user', parts: [{ text }] }));
  return {
    contents: turns,
    systemInstruction: system === undefined ? undefined : { parts: [{ text: system }] },
    ...toolFields(request),
    // Settings left undefined vanish from the JSON body.
    generationConfig: {
      // The cap the client was billed for.
      maxOutputTokens: call.maxTokens,
      temperature: request.temperature,
      topP: request.top_p,
      stopSequences: request.stop === undefined ? undefined : [request.stop].flat(),
      seed: request.seed,
      presencePenalty: request.presence_penalty,
      frequencyPenalty: request.frequency_penalty,
      ...jsonOutput(request.response_format),
      thinkingConfig: thinkingConfig(call),
    },
  };
}

function contents(messages: readonly ChatMessage[]): Array<Turn<'user' | 'model', Part>> {
  // A function response names its function, where an OpenAI tool message only gives the call's id.
  const functionNames = new Map<string, string>();
  const turns = messages
    .filter((message) => !isSystemMessage(message))
    .map((message) => {
      for (const call of message.tool_calls ?? []) functionNames.set(call.id, call.function.name);
      return turn(message, functionNames);
    });
  return alternatingTurns(turns);
}

function turn(message: ChatMessage, functionNames: ReadonlyMap<string, string>): Turn<'user' | 'model', Part> {
  switch (message.role) {
    case 'tool':
      return { role: 'user', parts: [functionResponse(message, functionNames)] };
    case 'assistant':
      return { role: 'model', parts: [...contentParts(message).map(part), ...(message.tool_calls ?? []).map(functionCall)] };
    default:
      return { role: 'user', parts: contentParts(message).map(part) };
  }
}

function part(content: ContentPart): Part {
  if (content.type === 'text') return { text: content.text };
  const { url } = content.image_url;
  const inline = parseDataUrl(url);
  return inline ? { inlineData: { mimeType: inline.mediaType, data: inline.data } } : { fileData: { fileUri: url, mimeType: imageMimeType(url) } };
}

/** Arguments that are not a JSON object become {}, as for Anthropic (anthropic-request.ts says why). */
function functionCall(call: ToolCall): Part {
  return { functionCall: { name: call.function.name, args: parseJsonObject(call.function.arguments) ?? {} }, thoughtSignature: NO_THOUGHT_SIGNATURE };
}

/**
 * A JSON object answer goes as the response itself, anything else wrapped as `{content}`. An id
 * that answers no earlier call leaves the name to the message's own `name`, else empty, which
 * Gemini refuses as OpenAI refuses a tool message answering no call.
 */
function functionResponse(message: ChatMessage, functionNames: ReadonlyMap<string, string>): Part {
  const text = messageText(message);
  const name = functionNames.get(message.tool_call_id ?? '') ?? message.name ?? '';
  return { functionResponse: { name, response: parseJsonObject(text) ?? { content: text } } };
}

/** Declarations take the client's JSON Schema as is through `parametersJsonSchema`; `parameters` reads only an OpenAPI subset. */
function toolFields(request: ChatRequest): Pick<GenerateContentRequest, 'tools' | 'toolConfig'> {
  if (!request.tools?.length) return {};
  const functionDeclarations = request.tools.map(({ function: declared }): FunctionDeclaration => ({
    name: declared.name,
    description: declared.description,
    parametersJsonSchema: declared.parameters,
  }));
  const choice = request.tool_choice;
  if (choice === undefined) return { tools: [{ functionDeclarations }] };
  const functionCallingConfig = typeof choice === 'object' ? { mode: 'ANY' as const, allowedFunctionNames: [choice.function.name] } : { mode: TOOL_MODES[choice] };
  return { tools: [{ functionDeclarations }], toolConfig: { functionCallingConfig } };
}

/** JSON mode; a json_schema's schema also goes as `responseJsonSchema`, which reads JSON Schema as clients write it. */
function jsonOutput(format: ResponseFormat | undefined): Pick<GenerationConfig, 'responseMimeType' | 'responseJsonSchema'> {
  if (format?.type !== 'json_object' && format?.type !== 'json_schema') return {};
  const schema = format.json_schema?.schema;
  return { responseMimeType: 'application/json', responseJsonSchema: isJsonObject(schema) ? schema : undefined };
}
