import type {
  Base64ImageSource,
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsBase,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolChoice,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { messageText, type ChatMessage, type ChatRequest, type ContentPart, type ToolCall } from '../../../modules/providers/domain/chat-request';
import type { UpstreamCall } from '../../../modules/providers/ports/llm-provider';
import { alternatingTurns, type Turn } from '../shared/alternating-turns';
import { parseDataUrl } from '../shared/data-url';
import { parseJsonObject } from '../shared/json-object';
import { contentParts, isSystemMessage } from '../shared/message-parts';
import { isSent } from '../shared/parameter-support';
import { spokenConversation } from '../shared/system-only-conversation';
import { anthropicParameters, jsonOutputTool, MAX_TEMPERATURE, stopSequences, thinkingBudget } from './anthropic-parameters';

/**
 * The Messages API body for a chat request, with the optional settings anthropic-parameters.ts
 * says it takes. A request from the Messages surface sends its own system, messages and tools
 * (its Anthropic slot: thinking blocks and cache_control kept), its thinking budget and top_k;
 * any other is translated from the neutral request.
 */
export function anthropicRequestBody(call: UpstreamCall): MessageCreateParamsBase {
  const { request } = call;
  const support = anthropicParameters(request, call.maxTokens);
  const budget = thinkingBudget(request, call.maxTokens);
  // Settings left undefined vanish from the JSON body.
  return {
    model: call.upstreamModel,
    // Required by the API, and the cap the client was billed for.
    max_tokens: call.maxTokens,
    ...(request.anthropic ? { system: request.anthropic.system, messages: request.anthropic.messages } : translatedConversation(request)),
    temperature: isSent(support, 'temperature') && request.temperature !== undefined ? Math.min(request.temperature, MAX_TEMPERATURE) : undefined,
    top_p: isSent(support, 'top_p') ? request.top_p : undefined,
    // Anthropic refuses top_k while thinking.
    top_k: budget === undefined ? request.anthropic?.top_k : undefined,
    stop_sequences: stopSequences(request),
    metadata: request.user === undefined ? undefined : { user_id: request.user },
    ...toolFields(request),
    thinking: budget === undefined ? undefined : { type: 'enabled', budget_tokens: budget },
    stream: call.stream,
  };
}

function translatedConversation(request: ChatRequest): Pick<MessageCreateParamsBase, 'system' | 'messages'> {
  const conversation = request.messages.filter((message) => !isSystemMessage(message)).map(turn);
  const { system, turns } = spokenConversation(request.messages, alternatingTurns(conversation), (text) => ({ role: 'user', parts: [{ type: 'text' as const, text }] }));
  return { system, messages: turns.map(({ role, parts }): MessageParam => ({ role, content: parts })) };
}

function turn(message: ChatMessage): Turn<MessageParam['role'], ContentBlockParam> {
  switch (message.role) {
    case 'tool':
      return { role: 'user', parts: [toolResult(message)] };
    case 'assistant':
      return { role: 'assistant', parts: [...contentParts(message).map(block), ...(message.tool_calls ?? []).map(toolUse)] };
    default:
      return { role: 'user', parts: contentParts(message).map(block) };
  }
}

function block(part: ContentPart): TextBlockParam | ImageBlockParam {
  if (part.type === 'text') return { type: 'text', text: part.text };
  const inline = parseDataUrl(part.image_url.url);
  // Anthropic reads base64 JPEG, PNG, GIF and WebP, and http(s) URLs; anything else is its to refuse (a 400).
  const source: ImageBlockParam['source'] = inline ? { type: 'base64', media_type: inline.mediaType as Base64ImageSource['media_type'], data: inline.data } : { type: 'url', url: part.image_url.url };
  return { type: 'image', source };
}

/**
 * Anthropic wants the input as an object. Arguments that are not a JSON object (a call cut off by
 * max_tokens and echoed back) become {}: the call was made, the next turn needs its result, and
 * refusing the request would leave the conversation stuck.
 */
function toolUse(call: ToolCall): ToolUseBlockParam {
  return { type: 'tool_use', id: call.id, name: call.function.name, input: parseJsonObject(call.function.arguments) ?? {} };
}

/** A tool's answer goes back in a user turn, tied to its tool_use block by id; a blank answer has no content block. */
function toolResult(message: ChatMessage): ToolResultBlockParam {
  const text = messageText(message);
  return { type: 'tool_result', tool_use_id: message.tool_call_id ?? '', ...(text.trim() !== '' && { content: text }) };
}

function toolFields(request: ChatRequest): Pick<MessageCreateParamsBase, 'tools' | 'tool_choice'> {
  const jsonTool = jsonOutputTool(request);
  if (jsonTool) return { tools: [jsonTool], tool_choice: { type: 'tool', name: jsonTool.name } };
  if (!request.tools?.length) return {};
  const tools =
    request.anthropic?.tools ??
    request.tools.map(({ function: declared }): Tool => ({
      name: declared.name,
      ...(declared.description !== undefined && { description: declared.description }),
      input_schema: { ...declared.parameters, type: 'object' },
    }));
  const choice = toolChoice(request.tool_choice, request.parallel_tool_calls === false);
  return { tools, ...(choice && { tool_choice: choice }) };
}

/** OpenAI's `required` is Anthropic's `any`; `parallel_tool_calls: false` rides on the choice, `auto` when none was given. */
function toolChoice(choice: ChatRequest['tool_choice'], oneCallAtATime: boolean): ToolChoice | undefined {
  const parallel = oneCallAtATime ? { disable_parallel_tool_use: true } : {};
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...parallel };
  if (typeof choice === 'object') return { type: 'tool', name: choice.function.name, ...parallel };
  return choice === 'auto' || oneCallAtATime ? { type: 'auto', ...parallel } : undefined;
}
