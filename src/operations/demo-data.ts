// The demo company's catalogue and customers (src/operations/demo.ts builds the company from it):
// Mozambican names, NUITs, phones and addresses; products of every type, priced in MZN.
import type { ProductBody } from '../products/schemas.js';

export const DEMO_COMPANY = { name: 'Mercearia Baía de Maputo, Lda', nuit: '400512873' } as const;

export const DEMO_CUSTOMERS = [
  {
    key: 'ana',
    name: 'Ana Cristina Macuácua',
    type: 'individual',
    email: 'ana.macuacua@exemplo.co.mz',
    phone: '+258 84 312 4567',
    nuit: '102345678',
    address: 'Av. Julius Nyerere 1420, Polana Cimento, Maputo',
  },
  {
    key: 'joao',
    name: 'João Manuel Sitoe',
    type: 'individual',
    email: null,
    phone: '+258 82 765 4321',
    nuit: '108765432',
    address: 'Bairro da Machava, Rua 4, Matola',
  },
  {
    key: 'fatima',
    name: 'Fátima Tembe',
    type: 'individual',
    email: 'fatima.tembe@exemplo.co.mz',
    phone: '+258 86 555 0192',
    nuit: '101556677',
    address: 'Rua Correia de Brito 210, Ponta Gêa, Beira',
  },
  {
    key: 'restaurante',
    name: 'Restaurante Costa do Sol, Lda',
    type: 'company',
    email: 'compras@costadosol.exemplo.co.mz',
    phone: '+258 21 45 0038',
    nuit: '400987654',
    address: 'Av. Marginal 10, Costa do Sol, Maputo',
  },
  {
    key: 'escola',
    name: 'Escola Primária Esperança da Matola',
    type: 'company',
    email: 'secretaria@esperanca.exemplo.co.mz',
    phone: '+258 21 78 2210',
    nuit: '500112233',
    address: 'Av. União Africana 300, Matola',
  },
  {
    key: 'transportes',
    name: 'Transportes Chaimite, Lda',
    type: 'company',
    email: 'financeiro@chaimite.exemplo.co.mz',
    phone: '+258 23 32 1234',
    nuit: '401223344',
    address: 'Rua Major Serpa Pinto 55, Beira',
  },
] as const;
export type CustomerKey = (typeof DEMO_CUSTOMERS)[number]['key'];

/** Products of every type; `stock` is the opening stock of INVENTORY ones; `taxed` links IVA 16%. */
export const DEMO_PRODUCTS: readonly {
  key: string;
  body: Omit<ProductBody, 'tax_id'>;
  taxed: boolean;
  stock?: string;
}[] = [
  {
    key: 'arroz',
    body: {
      name: 'Arroz agulha 5 kg',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: 425,
      sku: 'ARZ-AG-5',
      unity: 'saco',
      reorder_level: 20,
    },
    taxed: true,
    stock: '120',
  },
  {
    key: 'oleo',
    body: {
      name: 'Óleo de girassol 1 L',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: 165.5,
      sku: 'OLE-GIR-1',
      unity: 'garrafa',
      reorder_level: 24,
    },
    taxed: true,
    stock: '200',
  },
  {
    key: 'acucar',
    body: {
      name: 'Açúcar castanho 2 kg',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: 150,
      sku: 'ACU-CAS-2',
      unity: 'pacote',
    },
    taxed: true,
    stock: '80',
  },
  {
    key: 'agua',
    body: {
      name: 'Água mineral 1,5 L',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: 45,
      pos_price: 50,
      sku: 'AGU-15',
      unity: 'garrafa',
    },
    taxed: true,
    stock: '300',
  },
  {
    key: 'milho',
    // Basic foodstuff: IVA exempt, no tax.
    body: {
      name: 'Farinha de milho 10 kg',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: 520,
      sku: 'FAR-MIL-10',
      unity: 'saco',
    },
    taxed: false,
    stock: '60',
  },
  {
    key: 'entrega',
    body: {
      name: 'Entrega ao domicílio (Grande Maputo)',
      type: 'SERVICES',
      inventory: 'NON_INVENTORY',
      price: 250,
      unity: 'serviço',
      description: 'Entrega no mesmo dia em Maputo e Matola, encomendas até 50 kg.',
    },
    taxed: true,
  },
  {
    key: 'trigo',
    body: {
      name: 'Farinha de trigo a granel',
      type: 'RAW',
      inventory: 'INVENTORY',
      price: 62.5,
      unity: 'kg',
      is_for_sale: false,
      description: 'Matéria-prima da padaria.',
    },
    taxed: false,
    stock: '500',
  },
  {
    key: 'arca',
    body: {
      name: 'Arca congeladora 400 L',
      type: 'ASSETS',
      inventory: 'NON_INVENTORY',
      price: 38500,
      unity: 'unidade',
      is_for_sale: false,
    },
    taxed: true,
  },
  {
    key: 'cabaz',
    body: {
      name: 'Cabaz básico familiar',
      type: 'KIT',
      inventory: 'NON_INVENTORY',
      price: 1250,
      unity: 'cabaz',
      description: 'Arroz 5 kg, óleo 1 L, açúcar 2 kg e farinha de milho 10 kg.',
    },
    taxed: true,
  },
];
export type ProductKey =
  | 'arroz'
  | 'oleo'
  | 'acucar'
  | 'agua'
  | 'milho'
  | 'entrega'
  | 'trigo'
  | 'arca'
  | 'cabaz';
