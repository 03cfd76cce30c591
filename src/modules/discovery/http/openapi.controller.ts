import { Controller, Get } from '@nestjs/common';
import { ApiAnswer } from '../../../http/openapi/api-answer';
import { OpenApiDocument } from '../../../http/openapi/openapi-document';

/** GET /openapi.json (spec 4.10): the API description, generated from the app itself. */
@Controller()
export class OpenApiController {
  constructor(private readonly openApi: OpenApiDocument) {}

  @Get('openapi.json')
  @ApiAnswer(200, 'this document (OpenAPI 3.1.0)', { type: 'object', required: ['openapi', 'info', 'paths'] })
  document(): object {
    return this.openApi.document;
  }
}
