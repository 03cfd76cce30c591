import { GatewayError } from '../errors/gateway-error';
import { AddTeamWalletDto, CreateOrgDto } from '../modules/orgs/http/org-dtos';
import { dtoValidationPipe } from './dto-validation.pipe';

const WALLET = '11111111111111111111111111111111';

async function refusalOf(metatype: new () => object, body: unknown): Promise<GatewayError> {
  const refused: unknown = await dtoValidationPipe()
    .transform(body, { type: 'body', metatype })
    .then(
      () => new Error('accepted'),
      (err: unknown) => err,
    );
  if (!(refused instanceof GatewayError)) throw refused;
  return refused;
}

describe('the DTO validation pipe', () => {
  it('names the field at fault in the message and in param', async () => {
    const refused = await refusalOf(CreateOrgDto, { name: 'acme', owner_wallet: 'not a wallet' });
    expect(refused).toMatchObject({ code: 'request.invalid_body', param: 'owner_wallet', message: 'owner_wallet: wallet address must be base58, 32 to 44 characters' });
  });

  it('names an unknown field as the one at fault', async () => {
    expect(await refusalOf(AddTeamWalletDto, { wallet_address: WALLET, colour: 'red' })).toMatchObject({ code: 'request.invalid_body', param: 'colour' });
  });

  it('names no field when the body as a whole is refused', async () => {
    expect(await refusalOf(CreateOrgDto, { toString: 'x' })).toMatchObject({ code: 'request.invalid_body', param: null });
  });
});
