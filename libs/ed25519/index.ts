export { isSmallOrder, strictEd25519Valid } from './strict-verify';
