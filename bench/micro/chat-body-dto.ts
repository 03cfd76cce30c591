import { plainToInstance, Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Max, Min, MinLength, ValidateNested, validateSync } from 'class-validator';

/**
 * The chat body's common fields as class-validator DTOs, only to time the DTO route against the
 * Ajv schema on the same body (docs/decisions.md, "Request bodies"); the gateway does not use it.
 */
class ChatMessageDto {
  @IsIn(['system', 'user', 'assistant', 'tool', 'developer'])
  role!: string;

  @IsOptional()
  @IsString()
  content?: string;
}

class ChatBodyDto {
  @IsString()
  @MinLength(1)
  model!: string;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ChatMessageDto)
  messages!: ChatMessageDto[];

  @IsOptional()
  @IsInt()
  @Min(1)
  max_tokens?: number;

  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(2)
  temperature?: number;

  @IsOptional()
  @IsBoolean()
  stream?: boolean;
}

/** plainToInstance and validateSync, as the global pipe runs them; throws on a refusal. */
export function validateChatBodyAsDto(body: unknown): ChatBodyDto {
  const dto = plainToInstance(ChatBodyDto, body);
  const errors = validateSync(dto, { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: true });
  if (errors.length > 0) throw new Error(`refused: ${errors[0].property}`);
  return dto;
}
